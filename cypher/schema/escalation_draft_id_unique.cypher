// mode: schema
CREATE CONSTRAINT escalation_draft_id_unique IF NOT EXISTS
FOR (d:EscalationDraft) REQUIRE d.id IS UNIQUE
