// mode: read
// Liveness of the database: answers one row when Bolt and the database are up.
RETURN 1 AS ok
