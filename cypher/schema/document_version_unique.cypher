// mode: schema
// A document's versions are numbered 1, 2, ... once each; reading one is an index seek.
CREATE CONSTRAINT document_version_unique IF NOT EXISTS
FOR (v:DocumentVersion) REQUIRE (v.documentId, v.version) IS UNIQUE
