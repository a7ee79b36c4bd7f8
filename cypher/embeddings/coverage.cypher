// mode: read
// returns: paragraphs, embedded
// How many paragraphs there are, and how many carry a vector of the model.
// :param property => 'embedding_m0123abcd'
MATCH (p:Paragraph)
RETURN count(p) AS paragraphs, count(p[$property]) AS embedded
