"""The graph model of docs/architecture.md declared with neomodel.

Used for simple reads and administrative reads: the lifecycle entities (document versions, the
change feed, its counters) as the `kgs document versions` and `kgs changes` commands read them,
and tests that inspect the graph. Bulk ingestion, the writes of a version and the evidence
pipeline use the named statements in cypher/ instead: they need batching, one-transaction
document replacement, locks and traceable query text. Constraints are created from
cypher/schema/; tests/integration/test_graph_model.py checks each declared one exists.

Neo4j property names are camelCase (docs/architecture.md); Python attributes are snake_case with
`db_property` mapping. The `id` property is `uid` here because neomodel reserves `id`.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
)

__all__ = [
    "RELATION_TYPES",
    "ChangeCounter",
    "ChangeEvent",
    "Document",
    "DocumentVersion",
    "EmbeddingModel",
    "Heading",
    "KnowledgePoint",
    "Paragraph",
    "Relation",
]

# The allowlist: the only relationship types between knowledge points. CITES is bibliography and
# is never used as an answer neighbour.
RELATION_TYPES: tuple[str, ...] = (
    "IS_A",
    "PART_OF",
    "EXAMPLE_OF",
    "PREREQUISITE_OF",
    "PRECEDES",
    "DEPENDS_ON",
    "CAUSES",
    "ENABLES",
    "CONTRASTS_WITH",
    "ANALOGOUS_TO",
    "APPLIES_TO",
    "REFERENCES",
    "CITES",
)


class Relation(StructuredRel):
    confidence = FloatProperty(required=True)
    provenance = StringProperty(choices={"front_matter": "", "mermaid": "", "link": ""})
    source_paragraph_id = StringProperty(db_property="sourceParagraphId")
    source_document_id = StringProperty(db_property="sourceDocumentId")


class Paragraph(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    scope = StringProperty(required=True)
    kind = StringProperty(
        choices={k: k for k in ("paragraph", "list", "table", "code", "mermaid", "quote")}
    )
    text = StringProperty(required=True)
    ordinal = IntegerProperty(required=True)
    start_offset = IntegerProperty(db_property="startOffset")
    end_offset = IntegerProperty(db_property="endOffset")
    start_line = IntegerProperty(db_property="startLine")
    end_line = IntegerProperty(db_property="endLine")
    heading_path = ArrayProperty(StringProperty(), db_property="headingPath")
    content_hash = StringProperty(db_property="contentHash")
    embedding = ArrayProperty(FloatProperty())

    next = RelationshipTo("Paragraph", "NEXT")


class Heading(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    scope = StringProperty(required=True)
    text = StringProperty(required=True)
    level = IntegerProperty(required=True)
    heading_path = ArrayProperty(StringProperty(), db_property="headingPath")
    ordinal = IntegerProperty()
    start_offset = IntegerProperty(db_property="startOffset")
    end_offset = IntegerProperty(db_property="endOffset")
    start_line = IntegerProperty(db_property="startLine")
    end_line = IntegerProperty(db_property="endLine")

    subheadings = RelationshipTo("Heading", "HAS_SUBHEADING")
    paragraphs = RelationshipTo("Paragraph", "HAS_PARAGRAPH")


class Document(StructuredNode):
    uid = StringProperty(db_property="id", unique_index=True, required=True)
    scope = StringProperty(required=True)
    path = StringProperty(required=True)
    title = StringProperty()
    version = IntegerProperty()
    content_hash = StringProperty(db_property="contentHash")
    updated = StringProperty()
    valid_until = StringProperty(db_property="validUntil")
    superseded_by = StringProperty(db_property="supersededBy")
    ingested_at = StringProperty(db_property="ingestedAt")
    embedding_status = StringProperty(db_property="embeddingStatus")
    status = StringProperty(choices={"active": "in answers", "withdrawn": "restorable"})

    headings = RelationshipTo("Heading", "HAS_HEADING")
    versions = RelationshipTo("DocumentVersion", "HAS_VERSION")


class DocumentVersion(StructuredNode):
    """One immutable version of a document (docs/versions.md). Unique on (documentId, version):
    a composite constraint, which neomodel cannot declare (cypher/schema/document_version_unique).
    Its `structure` (compressed bytes) is read by ingest/versions.py, not here."""

    document_id = StringProperty(db_property="documentId", required=True)
    scope = StringProperty(required=True)
    path = StringProperty(required=True)
    version = IntegerProperty(required=True)
    content_hash = StringProperty(db_property="contentHash", required=True)
    source = StringProperty(required=True)
    paragraphs = IntegerProperty()
    headings = IntegerProperty()
    created_at = StringProperty(db_property="createdAt")
    created_at_ms = IntegerProperty(db_property="createdAtMs")


class ChangeEvent(StructuredNode):
    """One event of a scope's publication feed; unique on (scope, seq), a composite constraint
    (cypher/schema/change_event_unique)."""

    scope = StringProperty(required=True)
    seq = IntegerProperty(required=True)
    kind = StringProperty(
        required=True,
        choices={k: k for k in ("added", "updated", "restored", "withdrawn", "purged",
                                "modelActivated", "gapAnswerable", "conflictResolved",
                                "switchRefused")},
    )  # fmt: skip
    document_id = StringProperty(db_property="documentId")  # None: modelActivated, gapAnswerable
    path = StringProperty()
    old_version = IntegerProperty(db_property="oldVersion")
    new_version = IntegerProperty(db_property="newVersion")
    # modelActivated: the model now active, and the one before; switchRefused: the model not
    # activated, the one still active, the gates it missed and the figures measured (JSON)
    model = StringProperty()
    previous_model = StringProperty(db_property="previousModel")
    failed_gates = ArrayProperty(StringProperty(), db_property="failedGates")
    figures = StringProperty()
    ticket_id = StringProperty(db_property="ticketId")  # gapAnswerable: the ticket answered now
    # conflictResolved: the subjects a new version no longer leaves contradicted
    subjects = ArrayProperty(StringProperty())
    at = StringProperty()
    at_ms = IntegerProperty(db_property="atMs")


class ChangeCounter(StructuredNode):
    """The last number given in a scope's feed (`feed` is the scope's name)."""

    feed = StringProperty(unique_index=True, required=True)
    seq = IntegerProperty(required=True)


class KnowledgePoint(StructuredNode):
    uid = StringProperty(db_property="id", required=True)
    scope = StringProperty(required=True)
    title = StringProperty(required=True)
    aliases = ArrayProperty(StringProperty())
    alias_text = StringProperty(db_property="aliasText")
    kind = StringProperty()
    summary = StringProperty()

    described_in = RelationshipTo("Document", "DESCRIBED_IN")
    is_a = RelationshipTo("KnowledgePoint", "IS_A", model=Relation)
    part_of = RelationshipTo("KnowledgePoint", "PART_OF", model=Relation)
    example_of = RelationshipTo("KnowledgePoint", "EXAMPLE_OF", model=Relation)
    prerequisite_of = RelationshipTo("KnowledgePoint", "PREREQUISITE_OF", model=Relation)
    precedes = RelationshipTo("KnowledgePoint", "PRECEDES", model=Relation)
    depends_on = RelationshipTo("KnowledgePoint", "DEPENDS_ON", model=Relation)
    causes = RelationshipTo("KnowledgePoint", "CAUSES", model=Relation)
    enables = RelationshipTo("KnowledgePoint", "ENABLES", model=Relation)
    contrasts_with = RelationshipTo("KnowledgePoint", "CONTRASTS_WITH", model=Relation)
    analogous_to = RelationshipTo("KnowledgePoint", "ANALOGOUS_TO", model=Relation)
    applies_to = RelationshipTo("KnowledgePoint", "APPLIES_TO", model=Relation)
    references = RelationshipTo("KnowledgePoint", "REFERENCES", model=Relation)
    cites = RelationshipTo("KnowledgePoint", "CITES", model=Relation)


class EmbeddingModel(StructuredNode):
    """A model whose vectors paragraphs carry (service/embedding_space.py); `name` is
    `model@dimensions`, unique (cypher/schema/embedding_model_unique). Exactly one is active;
    cypher/embeddings/ holds the statements that change status."""

    name = StringProperty(unique_index=True, required=True)
    model = StringProperty(required=True)
    dimensions = IntegerProperty(required=True)
    normalised = BooleanProperty()
    property = StringProperty(required=True)  # the paragraph property holding its vectors
    index = StringProperty(required=True)  # its shared vector index
    status = StringProperty(
        required=True,
        choices={s: s for s in ("building", "ready", "active", "standby", "retiring")},
    )
    created_at = StringProperty(db_property="createdAt")
    activated_at = StringProperty(db_property="activatedAt")
