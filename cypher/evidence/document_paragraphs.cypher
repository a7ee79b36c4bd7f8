// mode: read
// returns: documentId, path, title, version, facts, profile, paragraphs
// Complete documents (the maximum source boundary): every paragraph of each document in
// reading order, for small-to-big windows around spans and for neighbour evidence. One row per
// document with its paragraphs as a list of maps (a row per paragraph cost twice the time in
// the driver). `analysis` is the paragraph's text analysis stored at ingest (bytes,
// service/text/analysis.py): the conflict scan decodes it instead of extracting again.
// `utf16Start` is the paragraph's start in UTF-16 code units, from which citations derive
// their utf16Start/utf16End (null on a paragraph written before kgs stored it). `pageFirst`,
// `pageStarts` and `anchor` place a converted document's paragraph in its original (a PDF page,
// an HTML anchor: ingest/origin.py); null for Markdown.
// `facts` are the version's Fact nodes (cypher/ingest/replace_facts.cypher) as the conflict
// scan groups them, and `profile` the document's words, names and figures written with them:
// the scan decodes `analysis` only for the paragraphs whose facts can meet another value. Both
// null when the document was not written in the fact layout the caller reads ($factLayout): the
// scan then reads every analysis. The facts are read once per document through the
// (documentId, version) index, not per paragraph: 300 paragraph subqueries cost 2.4 ms more.
// :param documentIds => ['d_...']
// :param factLayout => 'fact-nodes-2'
UNWIND $documentIds AS documentId
MATCH (d:Document {id: documentId})
WITH d, d.version AS version
// A paragraph deleted by a concurrent commit while this read runs (READ COMMITTED) is read
// once as a map and dropped when its id is gone, so no map ever carries null properties.
MATCH (p:Paragraph {documentId: d.id})
WITH d, version, p {paragraphId: p.id, .kind, .text, .ordinal, .headingPath, .startOffset,
                    .endOffset, .utf16Start, .startLine, .endLine, .analysis, .pageFirst,
                    .pageStarts, .anchor} AS p
WHERE p.paragraphId IS NOT NULL
WITH d, version, p
ORDER BY p.ordinal
WITH d, version, collect(p) AS paragraphs
// A scan that straddled the commit of a new version may hold paragraphs of both: the version
// read again after the scan tells, and such a document is left out of this read.
WHERE d.version = version
RETURN d.id AS documentId, d.path AS path, d.title AS title, version,
       CASE WHEN d.factLayout = $factLayout THEN COLLECT {
         MATCH (f:Fact {documentId: d.id, version: version})
         RETURN f {.paragraphId, .index, .kind, .key, .norm, .conditions, .contextual}
       } END AS facts,
       CASE WHEN d.factLayout = $factLayout
            THEN {words: d.factWords, anchors: d.factAnchors, tokens: d.factTokens} END AS profile,
       paragraphs
