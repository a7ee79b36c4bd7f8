// mode: read
// returns: fate, versions
// What retention would do with every version (of one scope, or all): the head, the newest
// $keepLast of a document, those younger than $cutoffMs and those an answer record cites are
// kept; the rest are released. release_versions.cypher applies the same rules.
// :param scope => null
// :param keepLast => 10
// :param cutoffMs => 0
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE $scope IS NULL OR d.scope = $scope
WITH CASE
  WHEN v.version = d.version THEN 'head'
  WHEN v.version > d.version - $keepLast THEN 'lastN'
  WHEN v.createdAtMs >= $cutoffMs THEN 'young'
  WHEN EXISTS { (:AnswerRecord)-[:CITED_DOCUMENT {version: v.version}]->(d) } THEN 'cited'
  ELSE 'release'
END AS fate
RETURN fate, count(*) AS versions
