// mode: read
// returns: id, text
// The texts of the paragraphs one page of the health report quotes.
// :param ids => ['p_51593754c7ccf463b3a7']
UNWIND $ids AS id
MATCH (p:Paragraph {id: id})
RETURN p.id AS id, p.text AS text
