// mode: schema
CREATE CONSTRAINT answer_record_id_unique IF NOT EXISTS
FOR (r:AnswerRecord) REQUIRE r.id IS UNIQUE
