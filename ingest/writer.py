"""Graph writes of ingestion: a document is replaced as a unit, in one managed transaction, so a
reader sees the old version or the new one, never a mix. Each transaction first takes the
document's lock and decides from the head it then sees (ingest/versions.py): it may make a new
version, restore, rewrite the projection, or write nothing; it may refuse a stale If-Match.
Statements are idempotent given that decision, so the driver may retry the transaction and a
killed run can simply be run again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from neo4j import ManagedTransaction

from ingest.facts import DocumentFacts, unit_facts
from ingest.units import DocumentUnit
from ingest.versions import (
    WITHDRAWN,
    HeadChanged,
    HeadState,
    NotWithdrawable,
    WriteKind,
    decide_write,
    encode_structure,
)
from service.db.graph import Graph, WriteCounters
from service.embedding_space import ORIGINAL_PROPERTY
from service.errors import KgsError
from service.graph_model import RELATION_TYPES
from service.scope import scope_key
from service.text.facts import FACT_LAYOUT, paragraph_analysis
from service.text.near_keys import near_keys

__all__ = [
    "Derived",
    "DocumentGone",
    "UnitWrite",
    "derive",
    "prune_knowledge_points",
    "purge_document",
    "withdraw_document",
    "write_unit",
]

# Row fields used to build relationships or embeddings, not stored as node properties.
_HEADING_LINK_FIELDS = ("parentId",)
_PARAGRAPH_TRANSIENT_FIELDS = ("headingId", "embeddingText")


class Derived(msgspec.Struct, frozen=True):
    """What ingest derives from a unit's text besides its vectors, computed only for units that
    will be written (an unchanged document costs none of it): per paragraph, the stored text
    analysis and the near-duplicate keys; per document, its facts (ingest/facts.py)."""

    analyses: dict[str, bytes]
    near_keys: dict[str, list[str]]
    facts: dict[str, DocumentFacts]


def derive(units: Iterable[DocumentUnit]) -> Derived:
    """Pure Python: ingestion derives the next documents while Neo4j writes the current ones."""
    units = list(units)
    analyses = {p["id"]: paragraph_analysis(p["text"], p["kind"])
                for u in units for p in u.paragraphs}  # fmt: skip
    return Derived(
        analyses=analyses,
        near_keys={p["id"]: near_keys(p["text"]) for u in units for p in u.paragraphs},
        facts={u.id: unit_facts(u, analyses) for u in units},
    )


class DocumentGone(KgsError, LookupError):
    """The document was purged before this change could take its lock (HTTP 404)."""

    http_status = 404


class UnitWrite(msgspec.Struct, frozen=True):
    kind: WriteKind
    version: int  # the head version after the write
    counters: WriteCounters


class _Unchanged(Exception):
    """Raised inside a write transaction to roll back its lock: nothing was to be written."""

    def __init__(self, version: int) -> None:
        self.version = version


def write_unit(
    graph: Graph,
    unit: DocumentUnit,
    vectors: Mapping[str, list[float]],
    embedding_status: str,
    derived: Derived,
    *,
    if_match: int | None = None,
    vector_property: str = ORIGINAL_PROPERTY,
    other_vector_properties: Sequence[str] = (),
) -> UnitWrite:
    """`derived`: derive() of the unit (or of more units with it). `if_match`: the head version the
    caller last saw; another head raises HeadChanged and nothing is written. `vectors` are the
    active model's, stored on `vector_property`; the other recorded models' vectors of a
    re-embedded paragraph are removed (cypher/ingest/upsert_paragraphs)."""
    doc_id, scope = unit.id, str(unit.document["scope"])
    headings = [_without(h, _HEADING_LINK_FIELDS) for h in unit.headings]
    heading_links = [{"id": h["id"], "parentId": h["parentId"]} for h in unit.headings]
    paragraphs = [
        {
            "id": p["id"],
            "properties": _without(p, _PARAGRAPH_TRANSIENT_FIELDS)
            | {"analysis": derived.analyses[p["id"]], "nearKeys": derived.near_keys[p["id"]]},
            "embedding": vectors.get(p["id"]),
        }
        for p in unit.paragraphs
    ]
    paragraph_links = [
        {
            "id": p["id"],
            "headingId": p["headingId"],
            "previousId": unit.paragraphs[i - 1]["id"] if i else None,
        }
        for i, p in enumerate(unit.paragraphs)
    ]
    knowledge_points = [_struct_dict(kp) for kp in unit.knowledge_points]
    relations = [_struct_dict(r) for r in unit.relations]

    def work(tx: ManagedTransaction) -> UnitWrite:
        head = HeadState.of(graph.run_write(tx, "ingest/lock_document", documentId=doc_id,
                                            scope=scope, path=unit.path).rows[0])  # fmt: skip
        _check_if_match(doc_id, head, if_match)
        kind, version = decide_write(
            head, str(unit.document["contentHash"]), unit.unit_hash, embedding_status
        )
        if kind == "unchanged":
            raise _Unchanged(version)
        steps: list[tuple[str, dict[str, Any]]] = [
            ("ingest/upsert_document", {"document": unit.document, "unitHash": unit.unit_hash,
                                        "embeddingStatus": embedding_status,
                                        "version": version}),
            ("ingest/remove_stale_document_parts", {"documentId": doc_id,
                                                    "headingIds": [h["id"] for h in headings],
                                                    "paragraphIds": [p["id"] for p in paragraphs]}),
            ("ingest/upsert_headings", {"rows": headings, "documentId": doc_id, "scope": scope}),
            ("ingest/link_headings", {"rows": heading_links, "documentId": doc_id}),
            ("ingest/upsert_paragraphs", {"rows": paragraphs, "documentId": doc_id,
                                          "scope": scope, "property": vector_property,
                                          "others": list(other_vector_properties)}),
            ("ingest/link_paragraphs", {"rows": paragraph_links, "documentId": doc_id}),
            ("ingest/replace_facts", {"rows": derived.facts[doc_id].rows,
                                      "profile": derived.facts[doc_id].profile,
                                      "documentId": doc_id, "scope": scope, "version": version,
                                      "layout": FACT_LAYOUT}),
            ("ingest/clear_document_knowledge", {"documentId": doc_id, "scope": scope}),
            ("ingest/upsert_knowledge_points", {"rows": knowledge_points, "documentId": doc_id,
                                                "scope": scope, "scopeKey": scope_key(scope)}),
            ("ingest/create_relations", {"rows": relations, "documentId": doc_id, "scope": scope,
                                         "declared": _declared(unit),
                                         "sources": sorted({r["source"] for r in relations}),
                                         "relationTypes": list(RELATION_TYPES)}),
        ]  # fmt: skip
        if kind == "adopted" and (head.unit_hash, head.embedding_status) == (
            unit.unit_hash, embedding_status
        ):  # fmt: skip
            steps = []  # the projection is this content already: only record and announce it
        if kind in ("added", "updated", "adopted"):
            steps.append(_version_step(unit, version))
        if kind != "rewritten":  # a rewrite changes no content: nothing to publish
            announced = "added" if kind == "adopted" else kind  # first time in the feed
            old = None if kind == "adopted" else head.version or None
            steps.append(("ingest/append_change",
                          _change(scope, announced, doc_id, unit.path, old, version)))  # fmt: skip
        contested = _contested(graph, tx, doc_id, scope) if kind == "updated" else []
        counters = _run(graph, tx, steps)
        if contested:  # the subjects this version no longer leaves contradicted
            still = {(r["key"], tuple(r["conditions"]))
                     for r in _contested(graph, tx, doc_id, scope, contested)}  # fmt: skip
            resolved = [s for s in contested if (s["key"], tuple(s["conditions"])) not in still]
            if resolved:
                counters = counters + graph.run_write(tx, "facts/announce_resolved", **_change(
                    scope, "conflictResolved", doc_id, unit.path, head.version, version
                ) | {"subjects": [_subject_text(s) for s in resolved]}).counters  # fmt: skip
        return UnitWrite(kind, version, counters)

    try:
        return graph.in_write_transaction(work, label=f"ingest {unit.path}")
    except _Unchanged as unchanged:
        return UnitWrite("unchanged", unchanged.version, WriteCounters())


def withdraw_document(graph: Graph, document_id: str, *, if_match: int | None = None) -> int:
    """Takes an active document out of answers, keeping its versions; returns its version."""

    def work(tx: ManagedTransaction) -> int:
        head, scope, path = _lock_existing(graph, tx, document_id, if_match)
        if head.status == WITHDRAWN:
            raise NotWithdrawable(f"document {document_id} is already withdrawn")
        graph.run_write(tx, "ingest/withdraw_document", documentId=document_id)
        graph.run_write(
            tx,
            "ingest/append_change",
            **_change(scope, "withdrawn", document_id, path, head.version, None),
        )
        return head.version

    return graph.in_write_transaction(work, label=f"withdraw {document_id}")


def purge_document(graph: Graph, document_id: str, *, if_match: int | None = None) -> WriteCounters:
    """Removes a document and all of its versions for good."""

    def work(tx: ManagedTransaction) -> WriteCounters:
        head, scope, path = _lock_existing(graph, tx, document_id, if_match)
        counters = graph.run_write(tx, "ingest/delete_document", documentId=document_id).counters
        graph.run_write(
            tx,
            "ingest/append_change",
            **_change(scope, "purged", document_id, path, head.version, None),
        )
        return counters

    return graph.in_write_transaction(work, label=f"purge {document_id}")


def prune_knowledge_points(graph: Graph, scope: str) -> int:
    return int(graph.write("ingest/prune_knowledge_points", scope=scope).rows[0]["pruned"])


def _version_step(unit: DocumentUnit, version: int) -> tuple[str, dict[str, Any]]:
    return ("ingest/record_version", {
        "documentId": unit.id, "version": version,
        "contentHash": unit.document["contentHash"], "sourceText": unit.source,
        "structure": encode_structure(_public_headings(unit), _public_paragraphs(unit)),
        "paragraphs": len(unit.paragraphs), "headings": len(unit.headings),
        # The original file of a converted document (PDF, HTML, ...): Markdown's is the source.
        "mediaType": unit.document["mediaType"], "originalHash": unit.document["originalHash"],
        "originalSize": unit.document["originalSize"], "original": unit.original})  # fmt: skip


def _declared(unit: DocumentUnit) -> list[str]:
    """Every relation the document declares, written or not (its target unknown), as text:
    source, type, target, line and paragraph joined by U+001F (cypher/ingest/create_relations)."""
    return ["\x1f".join((r.source, r.type, r.target, str(r.sourceLine or ""),
                         r.sourceParagraphId or ""))
            for r in (*unit.relations, *unit.unresolved)]  # fmt: skip


def _contested(
    graph: Graph,
    tx: ManagedTransaction,
    document_id: str,
    scope: str,
    subjects: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The contradictions of the scope (the health report's) the document takes part in, or
    which of `subjects` are still contradicted."""
    return graph.run_write(tx, "facts/contested_subjects", reads=True, documentId=document_id,
                           scope=scope, subjects=subjects).rows  # fmt: skip


def _subject_text(subject: Mapping[str, Any]) -> str:
    conditions = ", ".join(subject["conditions"])
    return f"{subject['key']} [{conditions}]" if conditions else str(subject["key"])


def _run(
    graph: Graph, tx: ManagedTransaction, steps: list[tuple[str, dict[str, Any]]]
) -> WriteCounters:
    total = WriteCounters()
    for name, params in steps:
        total = total + graph.run_write(tx, name, **params).counters
    return total


def _lock_existing(
    graph: Graph, tx: ManagedTransaction, document_id: str, if_match: int | None
) -> tuple[HeadState, str, str]:
    rows = graph.run_write(tx, "ingest/lock_existing_document", documentId=document_id).rows
    if not rows:
        raise DocumentGone(f"document {document_id} not found")
    head = HeadState.of(rows[0])
    _check_if_match(document_id, head, if_match)
    return head, str(rows[0]["scope"]), str(rows[0]["path"])


def _check_if_match(document_id: str, head: HeadState, if_match: int | None) -> None:
    current = 0 if head.status == "new" else head.version
    if if_match is not None and if_match != current:
        raise HeadChanged(document_id, if_match, current)


def _change(
    scope: str, kind: str, document_id: str, path: str, old: int | None, new: int | None
) -> dict[str, Any]:
    return {"scope": scope, "kind": kind, "documentId": document_id, "path": path,
            "oldVersion": old, "newVersion": new}  # fmt: skip


def _public_headings(unit: DocumentUnit) -> list[dict[str, Any]]:
    """Headings as GET /v1/documents/{id} shows them (cypher/api/document_headings.cypher)."""
    fields = ("id", "ordinal", "level", "text", "headingPath", "startOffset", "endOffset",
              "startLine", "endLine", "parentId")  # fmt: skip
    return [{**{f: h[f] for f in fields}, **_place(h, _HEADING_PLACE)} for h in unit.headings]


def _public_paragraphs(unit: DocumentUnit) -> list[dict[str, Any]]:
    """Paragraphs as GET /v1/documents/{id} shows them (cypher/api/document_paragraphs)."""
    fields = ("id", "ordinal", "kind", "headingPath", "startOffset", "endOffset", "startLine",
              "endLine", "text")  # fmt: skip
    return [{**{f: p[f] for f in fields}, **_place(p, _PARAGRAPH_PLACE)} for p in unit.paragraphs]


def _place(row: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """A converted document's page and anchor fields (ingest/origin.py), null for Markdown:
    the same keys the head's projection returns (cypher/api/document_*.cypher)."""
    return {f: row.get(f) for f in fields}


_HEADING_PLACE = ("pageFirst", "pageLast", "anchor")
_PARAGRAPH_PLACE = ("pageFirst", "pageLast", "pageStarts", "anchor")


def _without(row: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in fields}


def _struct_dict(value: Any) -> dict[str, Any]:
    return {field: getattr(value, field) for field in value.__struct_fields__}
