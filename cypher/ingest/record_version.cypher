// mode: write
// A new immutable version: the exact source and the structure it was read into (headings and
// paragraphs as the API returns them, zlib-compressed JSON, ingest/versions.py). No index the
// answer path uses covers DocumentVersion.
// :param documentId => 'd_...'
// :param version => 2
// `original` is the original file's bytes of a converted document (PDF, HTML, Word, plain
// text; null for Markdown, whose source is the original).
MATCH (d:Document {id: $documentId})
CREATE (d)-[:HAS_VERSION]->(:DocumentVersion {
  documentId: d.id, scope: d.scope, path: d.path, version: $version,
  contentHash: $contentHash, source: $sourceText, structure: $structure,
  paragraphs: $paragraphs, headings: $headings,
  mediaType: $mediaType, originalHash: $originalHash, originalSize: $originalSize,
  original: $original,
  createdAt: toString(datetime()), createdAtMs: timestamp()
})
