// mode: write
// Removes up to $limit nodes of one scope (all labels carry `scope`); run until it deletes 0.
MATCH (n {scope: $scope})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
