// mode: read
// Transactions open on the server now, and how many of them belong to API requests (their
// metadata carries the request's trace id); the load test samples both to see none pile up.
SHOW TRANSACTIONS YIELD metaData
RETURN count(*) AS open, count(metaData['kgs.traceId']) AS service
