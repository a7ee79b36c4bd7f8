// mode: schema
// The shared vector index of a model other than the graph's first (that one's is
// schema/paragraph_embedding_vector). A property cannot be a parameter in a schema command:
// the service replaces the token VectorProperty with the model's property (`embedding_m` + 8
// hex, validated by service/db/graph.py), never with anything else.
// :param indexName => 'paragraph_embedding_m0123abcd'
// :param dimensions => 256
CREATE VECTOR INDEX $indexName IF NOT EXISTS
FOR (p:Paragraph) ON p.VectorProperty
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
