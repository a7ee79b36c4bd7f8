// mode: read
// returns: ref, id, scope, path, title, version, status, contentHash, source, structure
// The documents a full-text review binds (docs/reviews.md), named by id or by path (each path
// with the scope its first segment names, for the (scope, path) index), within the readable
// scopes ($scopes null: every scope). Each comes with its head version's exact source and its
// structure (compressed JSON of headings and paragraphs with offsets, decoded by
// ingest/versions.py): one immutable node holds both, so they always belong together. `ref` is
// the reference as the request wrote it. A document without a version node (written before
// versions were kept) comes back with a null source.
// :param ids => ['d_0123456789abcdef'];
// :param paths => [{scope: 'waterglass', path: 'waterglass/waterglass.md'}];
// :param scopes => null;
CALL () {
  UNWIND $ids AS ref
  MATCH (d:Document {id: ref})
  RETURN ref, d
  UNION
  UNWIND $paths AS named
  MATCH (d:Document {scope: named.scope, path: named.path})
  RETURN named.path AS ref, d
}
WITH ref, d
WHERE $scopes IS NULL OR d.scope IN $scopes
OPTIONAL MATCH (v:DocumentVersion {documentId: d.id, version: d.version})
RETURN ref, d.id AS id, d.scope AS scope, d.path AS path, d.title AS title,
       d.version AS version, coalesce(d.status, 'active') AS status,
       d.contentHash AS contentHash, v.source AS source, v.structure AS structure
