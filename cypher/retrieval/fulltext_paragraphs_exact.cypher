// mode: read
// Full-text channel of a small scope: the service scores BM25 with this scope's statistics
// (service/pipeline/lexical.py), so other scopes never change its scores. One row: the scope's
// statistics per field (paragraphs with tokens, tokens in all), summed over its documents, which
// carry their paragraphs' share (`lexicalStats`, written in the same transaction); and every
// paragraph of the scope that matches any clause: the limit is above the scope's paragraph
// count, so the shared index returns the complete match set whatever its own index-wide scores
// are. For each candidate: [paragraph id, document id, occurrences of each clause in its stored
// text tokens and heading tokens ($patterns: the clauses' wrapped tokens, as lexical.field_text
// stores them), its text and heading lengths in tokens, and, only for a paragraph written
// before tokens were stored, its text and heading text]. `unanalysed` counts the documents
// written before the statistics were stored: the service tokenises their paragraphs.
// :param scope => 'waterglass'
// :param lucene => '+scopeKey:s0123456789abcdef +(waterglass "water glass")'
// :param patterns => [' waterglass ', ' water  glass ']
MATCH (d:Document {scope: $scope})
WHERE d.path IS NOT NULL  // every document has one: lets the planner seek document_scope_path
WITH d, d.lexicalStats AS stats
WITH sum(CASE WHEN stats IS NULL THEN COUNT { (:Paragraph {documentId: d.id}) }
              ELSE stats[0] END) AS paragraphs,
     sum(coalesce(stats[1], 0)) AS textParagraphs,
     sum(coalesce(stats[2], 0)) AS textTokens,
     sum(coalesce(stats[3], 0)) AS headingParagraphs,
     sum(coalesce(stats[4], 0)) AS headingTokens,
     count(CASE WHEN stats IS NULL THEN 1 END) AS unanalysed
CALL (paragraphs) {
  CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: paragraphs + 1})
  YIELD node
  WHERE node.scope = $scope
  WITH node, node.textTokens AS text, node.headingTokens AS heading
  RETURN collect([
    node.id, node.documentId,
    [c IN $patterns | size(split(text, c)) - 1], [c IN $patterns | size(split(heading, c)) - 1],
    node.textTokenCount, node.headingTokenCount,
    CASE WHEN text IS NULL THEN node.text END, CASE WHEN text IS NULL THEN node.headingText END
  ]) AS candidates
}
RETURN textParagraphs, textTokens, headingParagraphs, headingTokens, unanalysed, candidates
