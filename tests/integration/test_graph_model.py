"""The neomodel object model (service/graph_model.py) against the real schema and data: every
uniqueness it declares exists as a constraint created from cypher/schema/, and the lifecycle
entities read through it are what ingestion wrote."""

from __future__ import annotations

from pathlib import Path

from neomodel import StructuredNode

from ingest.pipeline import ingest_file_text
from service import graph_model
from service.db import Graph
from service.db.object_model import bind_object_model
from service.graph_model import ChangeEvent, Document, DocumentVersion
from service.settings import Settings

# Uniqueness neomodel cannot declare (it has single-property constraints only).
COMPOSITE = {
    "DocumentVersion": ("documentId", "version"),
    "ChangeEvent": ("scope", "seq"),
    "KnowledgePoint": ("scope", "id"),
}


def test_every_declared_uniqueness_is_a_constraint(graph: Graph) -> None:
    constraints = {
        (row["label"], tuple(row["properties"]))
        for row in graph.read_text(
            "SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type "
            "WHERE type = 'UNIQUENESS' RETURN labelsOrTypes[0] AS label, properties",
            {},
        )
    }
    declared = set()
    for name in graph_model.__all__:
        model = getattr(graph_model, name)
        if not (isinstance(model, type) and issubclass(model, StructuredNode)):
            continue
        for attribute, prop in model.defined_properties(aliases=False, rels=False).items():
            if prop.unique_index:
                declared.add((model.__label__, (prop.get_db_property_name(attribute),)))
    declared |= {(label, props) for label, props in COMPOSITE.items()}
    assert declared and declared <= constraints, declared - constraints


def test_versions_and_events_read_through_the_object_model(
    graph: Graph, settings: Settings, scope: str, tmp_path: Path
) -> None:
    texts = ["# Fumarole\n\nA fumarole vents steam.\n", "# Fumarole\n\nA fumarole vents gas.\n"]
    for text in texts:
        ingest_file_text(graph, None, scope, "fumarole.md", text.encode(), settings.ingest)
    bind_object_model(graph)
    document = Document.nodes.get(path=f"{scope}/fumarole.md")
    assert (document.version, document.status) == (2, "active")
    versions = DocumentVersion.nodes.filter(document_id=document.uid).order_by("version")
    assert [(v.version, v.source) for v in versions] == [(1, texts[0]), (2, texts[1])]
    assert {v.version for v in document.versions.all()} == {1, 2}
    events = ChangeEvent.nodes.filter(scope=scope).order_by("seq")
    assert [(e.seq, e.kind, e.old_version, e.new_version) for e in events] == [
        (1, "added", None, 1), (2, "updated", 1, 2)
    ]  # fmt: skip
