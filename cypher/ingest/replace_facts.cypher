// mode: write
// The document's comparable facts (ingest/facts.py), written with its paragraphs in the same
// transaction: the new version's facts replace the current ones, which stay as history
// (`current` false, no STATES link) with their own `version`. The version's earlier facts, if
// any (a retried transaction, a rewrite of the same version), are deleted first, so the
// statement can run again with the same result.
// :param documentId => 'd_...'
// :param scope => 'ragconflict'
// :param version => 2
// `factLayout` on the document marks facts written in this layout (`kgs facts rebuild` looks
// for documents without it). With them, the document's profile, which the conflict scan reads
// instead of every paragraph's words (service/text/facts/words.py DocumentProfile): its
// distinct normalised words and its names and figures, each one string joined by spaces, and
// its token count.
// :param layout => 'fact-nodes-2'
// :param profile => {words: 'a calibration the tolerance', anchors: '0.10', tokens: 4}
// :param rows => [{paragraphId: 'p_...', index: 0, kind: 'measurement', key: '...', ...}]
CALL {
  MATCH (f:Fact {documentId: $documentId})
  WHERE f.current AND f.version <> $version
  SET f.current = false
  WITH f
  MATCH (:Paragraph)-[s:STATES]->(f)
  DELETE s
}
CALL {
  MATCH (f:Fact {documentId: $documentId, version: $version})
  DETACH DELETE f
}
CALL {
  MATCH (d:Document {id: $documentId})
  SET d.factLayout = $layout, d.factWords = $profile.words, d.factAnchors = $profile.anchors,
      d.factTokens = $profile.tokens
}
UNWIND $rows AS row
MATCH (p:Paragraph {id: row.paragraphId})
CREATE (p)-[:STATES]->(f:Fact)
SET f = row,
    f.id = row.paragraphId + ':' + toString($version) + ':' + toString(row.index),
    f.documentId = $documentId, f.scope = $scope, f.version = $version, f.current = true
