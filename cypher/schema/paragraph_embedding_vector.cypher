// mode: schema
// Dense channel of span retrieval: all-MiniLM-L6-v2 gives 384-dimension normalised vectors.
CREATE VECTOR INDEX paragraph_embedding IF NOT EXISTS
FOR (p:Paragraph) ON (p.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
