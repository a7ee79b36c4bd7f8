// mode: schema
// One registry entry per model and dimension ('all-MiniLM-L6-v2@384'), however many writers
// record it at once.
CREATE CONSTRAINT embedding_model_unique IF NOT EXISTS
FOR (m:EmbeddingModel) REQUIRE m.name IS UNIQUE
