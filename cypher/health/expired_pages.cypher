// mode: read
// returns: path, documentId, title, version, validUntil, supersededBy, reason
// Active documents of a scope that are superseded (supersededBy set) or expired (the date part
// of validUntil before $today, both ISO dates, as the answer's staleness review reads it), by
// path after the cursor ($after: the last path of the previous page, '' for the first). The
// (scope, path) index serves the seek and the order. One more row than the page is asked for,
// to know whether more exist.
// :param scope => 'waterglass'
// :param today => '2026-12-01'
// :param after => ''
// :param limit => 51
MATCH (d:Document)
WHERE d.scope = $scope AND d.path > $after AND coalesce(d.status, 'active') = 'active'
WITH d, CASE
          WHEN d.supersededBy IS NOT NULL THEN 'superseded'
          WHEN left(d.validUntil, 10) =~ '[0-9]{4}-[0-9]{2}-[0-9]{2}'
               AND left(d.validUntil, 10) < $today THEN 'expired'
        END AS reason
WHERE reason IS NOT NULL
RETURN d.path AS path, d.id AS documentId, d.title AS title, d.version AS version,
       d.validUntil AS validUntil, d.supersededBy AS supersededBy, reason
ORDER BY path
LIMIT $limit
