"""Knowledge points: search by name, and one point's profile, neighbours and documents.

Knowledge point ids are unique per scope. `scope` may be left out when the id is found in only
one readable scope; otherwise the answer is 409 with the readable scopes that hold it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, get
from litestar.params import Parameter

from service.api.auth import Grant
from service.api.errors import bad_request, not_found, problem, v1_problems
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.db.graph import Graph
from service.scope import scope_key
from service.text.relation_labels import compact_key

__all__ = ["KnowledgePointController", "knowledge_point_profile", "name_lucene"]

_WORD = re.compile(r"[^\W_]+")
_MIN_PREFIX_CHARS = 3  # shorter words match whole terms only (a prefix of 1-2 letters is noise)
_MAX_WORDS = 16


class Relation(msgspec.Struct, kw_only=True, rename="camel"):
    direction: Literal["in", "out"]
    type: str
    id: str
    title: str | None = None
    confidence: float | None = None
    provenance: str | None = None  # front_matter | mermaid | link
    source_paragraph_id: str | None = None
    source_document_id: str | None = None
    source_line: int | None = None


class DescribingDocument(msgspec.Struct, kw_only=True):
    id: str
    path: str
    title: str | None = None
    link: Literal["DESCRIBED_IN", "DECLARED_IN"]


class DegreeProfile(msgspec.Struct, kw_only=True, rename="camel"):
    incoming: dict[str, int]  # relation type -> count
    outgoing: dict[str, int]
    total: int


class KnowledgePoint(msgspec.Struct, kw_only=True, rename="camel"):
    id: str
    scope: str
    title: str | None = None
    aliases: list[str] = msgspec.field(default_factory=list)
    kind: str | None = None
    summary: str | None = None
    stub: bool = False  # named by a relation, described by no document
    degree: DegreeProfile
    neighbours: list[Relation]
    documents: list[DescribingDocument]


class KnowledgePointMatch(msgspec.Struct, kw_only=True):
    id: str
    scope: str
    title: str | None = None
    aliases: list[str] = msgspec.field(default_factory=list)
    kind: str | None = None
    stub: bool = False
    score: float


class KnowledgePointMatches(msgspec.Struct, kw_only=True):
    items: list[KnowledgePointMatch]


def name_lucene(text: str, scopes: list[str] | None) -> str:
    """Words only (letters and digits, lower-cased), so nothing the user typed can act as Lucene
    syntax; each word whole or as a prefix, plus the compact form of the whole text."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:_MAX_WORDS]
    if not words:
        raise bad_request("q must contain at least one letter or digit")
    clauses = [w for w in words] + [f"{w}*" for w in words if len(w) >= _MIN_PREFIX_CHARS]
    if (compact := compact_key(text)) and compact not in words:
        clauses.append(compact)
    lucene = f"+({' '.join(clauses)})"
    if scopes is not None:
        lucene = f"+scopeKey:({' '.join(scope_key(s) for s in scopes)}) {lucene}"
    return lucene


class KnowledgePointController(Controller):
    path = "/knowledge-points"
    tags = ["knowledge points"]  # noqa: RUF012

    @get(sync_to_thread=True, responses=v1_problems(404))
    def search(
        self,
        resources: AppResources,
        grant: Grant,
        q: Annotated[str, Parameter(min_length=1, description="words of a name or alias")],
        scope_name: Annotated[str | None, Parameter(query="scope", pattern=SCOPE_PATTERN)] = None,
        limit: Annotated[int, Parameter(ge=1)] = 20,
    ) -> KnowledgePointMatches:
        """Knowledge points whose title or aliases match the words of q, best first."""
        limits = resources.settings.api
        if len(q) > limits.max_query_chars:
            raise bad_request(f"q is longer than {limits.max_query_chars} characters")
        scopes = [readable_scope(grant, scope_name)] if scope_name is not None else grant.readable()
        if scopes == []:
            return KnowledgePointMatches(items=[])
        limit = min(limit, limits.max_search_results)
        rows = resources.request_graph().read(
            "api/knowledge_point_search", lucene=name_lucene(q, scopes), scopes=scopes,
            limit=limit,
        )  # fmt: skip
        return KnowledgePointMatches(
            items=[msgspec.convert(_no_nulls(r), KnowledgePointMatch) for r in rows]
        )

    @get("/{point_id:str}", sync_to_thread=True, responses=v1_problems(404, 409))
    def get_point(
        self,
        resources: AppResources,
        grant: Grant,
        point_id: str,
        scope_name: Annotated[str | None, Parameter(query="scope", pattern=SCOPE_PATTERN)] = None,
    ) -> KnowledgePoint:
        """Profile (degree by relation type), neighbours with relation type, confidence and
        provenance, and the documents that describe the knowledge point."""
        return knowledge_point_profile(resources.request_graph(), grant, point_id, scope_name,
                                       resources.settings.api.max_neighbours)  # fmt: skip


def knowledge_point_profile(
    graph: Graph, grant: Grant, point_id: str, scope_name: str | None, max_neighbours: int
) -> KnowledgePoint:
    """GET /v1/knowledge-points/{id} and the MCP tool knowledge_point: 404 for a point outside
    the grant, 409 for an id held by several readable scopes when none is named."""
    if scope_name is None:
        held = [r["scope"] for r in graph.read(
            "api/knowledge_point_scopes", id=point_id, scopes=grant.readable())]  # fmt: skip
        if not held:
            raise not_found("knowledge point")
        if len(held) > 1:
            raise problem(409, "this id exists in several scopes: pass ?scope=", scopes=held)
        scope = held[0]
    else:
        scope = readable_scope(grant, scope_name)
    rows = graph.read("api/knowledge_point", scope=scope, id=point_id)
    if not rows:
        raise not_found("knowledge point")
    row = rows[0]
    incoming = {e["type"]: int(e["count"]) for e in row["incoming"]}
    outgoing = {e["type"]: int(e["count"]) for e in row["outgoing"]}
    neighbours = graph.read(
        "api/knowledge_point_neighbours", scope=scope, id=point_id, limit=max_neighbours
    )
    return msgspec.convert(
        {
            **_no_nulls({k: row[k] for k in ("id", "scope", "title", "aliases", "kind",
                                             "summary", "stub")}),
            "degree": {"incoming": incoming, "outgoing": outgoing,
                       "total": sum(incoming.values()) + sum(outgoing.values())},
            "neighbours": neighbours,
            "documents": row["documents"],
        },
        KnowledgePoint,
    )  # fmt: skip


def _no_nulls(row: dict[str, Any]) -> dict[str, Any]:
    """Absent properties come back as null; let the Struct defaults stand for them."""
    return {k: v for k, v in row.items() if v is not None}
