// mode: read
// returns: pairKey, active, first, second
// Candidate near-duplicate paragraph pairs of a scope: paragraphs of different documents that
// share a near key (Paragraph.nearKeys, service/health/near_keys.py, written at ingest). Only
// groups spanning two or more documents make pairs, and each keeps its first $maxGroup
// paragraphs by id (a paragraph repeated in more documents than that is boilerplate, and its
// pairs grow with the square of the group); sorting only those groups, not every key, saved a
// quarter of the time (100k paragraphs: about 4 s on two cores, most of it grouping the 800k
// keys). A pair is keyed by its two paragraph ids (fixed-length hashes, the lower first), once
// however many keys it shares; pairs after the cursor ($after: the last pair key examined, ''
// for the first), up to $limit, each with both paragraphs' text for the exact check in Python
// and whether both documents are still active (a pair of a withdrawn one is skipped there,
// still counted as examined).
// :param scope => 'waterglass'
// :param maxGroup => 100
// :param after => ''
// :param limit => 500
MATCH (p:Paragraph)
WHERE p.scope = $scope AND p.nearKeys IS NOT NULL
UNWIND p.nearKeys AS nearKey
WITH nearKey, collect([p.id, p.documentId]) AS members  // [paragraph id, document id]
WHERE size(members) > 1 AND any(m IN members WHERE m[1] <> members[0][1])
WITH COLLECT { UNWIND members AS m RETURN m ORDER BY m[0] LIMIT $maxGroup } AS members
UNWIND members AS a
UNWIND members AS b
WITH a, b
WHERE a[0] < b[0] AND a[1] <> b[1] AND a[0] + ' ' + b[0] > $after
WITH DISTINCT a[0] + ' ' + b[0] AS pairKey, a[0] AS firstId, b[0] AS secondId
ORDER BY pairKey
LIMIT $limit
MATCH (first:Paragraph {id: firstId}), (second:Paragraph {id: secondId})
OPTIONAL MATCH (d1:Document {id: first.documentId})
OPTIONAL MATCH (d2:Document {id: second.documentId})
RETURN pairKey,
       coalesce(d1.status, 'active') = 'active' AND coalesce(d2.status, 'active') = 'active'
         AND d1 IS NOT NULL AND d2 IS NOT NULL AS active,
       {documentId: first.documentId, path: d1.path, paragraphId: first.id,
        startLine: first.startLine, text: first.text} AS first,
       {documentId: second.documentId, path: d2.path, paragraphId: second.id,
        startLine: second.startLine, text: second.text} AS second
ORDER BY pairKey
