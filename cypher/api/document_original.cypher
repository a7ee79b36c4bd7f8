// mode: read
// The original file of one version of a converted document (PDF, HTML, Word, plain text), as
// the user gave it; `original` is null for Markdown, whose stored source is the original.
// :param id => 'd_...'
// :param version => 1
MATCH (v:DocumentVersion {documentId: $id, version: $version})
RETURN v.version AS version, coalesce(v.mediaType, 'text/markdown') AS mediaType,
       v.path AS path, v.original AS original, v.source AS source
