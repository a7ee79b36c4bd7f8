// mode: read
// The server's product name, version and edition (shown by `kgs neo4j status`).
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
