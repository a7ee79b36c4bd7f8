// mode: schema
// Replacing a version's facts, and reading the selected documents' facts in one statement.
CREATE INDEX fact_document_version IF NOT EXISTS
FOR (f:Fact) ON (f.documentId, f.version)
