// mode: read
// returns: name, model, dimensions, normalised, property, index, status, createdAt, activatedAt, deactivatedAtMs
// Every recorded model, the active one first, then the most recently deactivated.
MATCH (m:EmbeddingModel)
RETURN m.name AS name, m.model AS model, m.dimensions AS dimensions,
       m.normalised AS normalised, m.property AS property, m.index AS index,
       m.status AS status, m.createdAt AS createdAt, m.activatedAt AS activatedAt,
       m.deactivatedAtMs AS deactivatedAtMs
ORDER BY m.status = 'active' DESC, coalesce(m.deactivatedAtMs, 0) DESC, m.name
