// mode: read
// A model's vector indexes, shared and per scope (their names start with the model's index).
// :param index => 'paragraph_embedding_m0123abcd'
SHOW INDEXES YIELD name, state, type
WHERE type = 'VECTOR' AND (name = $index OR name STARTS WITH $index + '_s')
RETURN name, state
