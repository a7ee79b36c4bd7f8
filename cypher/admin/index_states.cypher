// mode: read
// Every index with its state; /ready and the schema step wait until the kgs ones are ONLINE.
SHOW INDEXES YIELD name, type, state, populationPercent, labelsOrTypes, properties
RETURN name, type, state, populationPercent, labelsOrTypes, properties
ORDER BY name
