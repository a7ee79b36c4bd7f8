// mode: read
// One version of a document, whole: its exact source and its structure (compressed, decoded by
// ingest/versions.py).
// :param id => 'd_...'
// :param version => 1
MATCH (v:DocumentVersion {documentId: $id, version: $version})
RETURN v.version AS version, v.contentHash AS contentHash, v.createdAt AS createdAt,
       v.source AS source, v.structure AS structure,
       coalesce(v.mediaType, 'text/markdown') AS mediaType
