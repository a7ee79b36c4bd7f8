// mode: read
// returns: paragraphId, documentId, textFrequencies, headingFrequencies, textLength,
// returns: headingLength, text, headingText, textParagraphs, textTokens, headingParagraphs,
// returns: headingTokens, unanalysed
// Full-text channel of a small scope: the service scores BM25 with this scope's statistics
// (service/pipeline/lexical.py), so other scopes never change its scores. First the scope's
// statistics per field (paragraphs with tokens, tokens in all), summed over its documents,
// which carry their paragraphs' share (written in the same transaction); then every paragraph
// of the scope that matches any clause: the limit is above the scope's paragraph count, so the
// shared index returns the complete match set whatever its own index-wide scores are. For each,
// the occurrences of each clause in its stored tokens ($patterns: the clauses' wrapped tokens,
// as lexical.field_text stores them). `unanalysed` documents were written before the tokens
// were stored: their paragraphs' text comes back and the service tokenises it.
// :param scope => 'waterglass'
// :param lucene => '+scopeKey:s0123456789abcdef +(waterglass "water glass")'
// :param patterns => [' waterglass ', ' water  glass ']
MATCH (d:Document {scope: $scope})
WHERE d.path IS NOT NULL  // every document has one: lets the planner seek document_scope_path
WITH sum(CASE WHEN d.lexicalParagraphs IS NULL THEN COUNT { (:Paragraph {documentId: d.id}) }
              ELSE d.lexicalParagraphs END) AS paragraphs,
     sum(coalesce(d.lexicalTextParagraphs, 0)) AS textParagraphs,
     sum(coalesce(d.lexicalTextTokens, 0)) AS textTokens,
     sum(coalesce(d.lexicalHeadingParagraphs, 0)) AS headingParagraphs,
     sum(coalesce(d.lexicalHeadingTokens, 0)) AS headingTokens,
     count(CASE WHEN d.lexicalParagraphs IS NULL THEN 1 END) AS unanalysed
CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: paragraphs + 1})
YIELD node
WHERE node.scope = $scope
WITH node, textParagraphs, textTokens, headingParagraphs, headingTokens, unanalysed,
     node.textTokenCount IS NULL AS stale
RETURN node.id AS paragraphId, node.documentId AS documentId,
       [c IN $patterns | size(split(node.textTokens, c)) - 1] AS textFrequencies,
       [c IN $patterns | size(split(node.headingTokens, c)) - 1] AS headingFrequencies,
       node.textTokenCount AS textLength, node.headingTokenCount AS headingLength,
       CASE WHEN stale THEN node.text END AS text,
       CASE WHEN stale THEN node.headingText END AS headingText,
       textParagraphs, textTokens, headingParagraphs, headingTokens, unanalysed
