// mode: write
// First statement of a document's replacement transaction; version counts rewrites.
// $analysis: the document's profile and vocabulary for the conflict scan (bytes,
// service/pipeline/analysis.py DocumentAnalysis), made from the paragraphs this transaction writes.
MERGE (d:Document {id: $document.id})
ON CREATE SET d.version = 0
SET d += $document,
    d.version = d.version + 1,
    d.unitHash = $unitHash,
    d.embeddingStatus = $embeddingStatus,
    d.analysis = $analysis,
    d.ingestedAt = toString(datetime())
