"""Graph context: anchor selection, degree profile, intent-ranked predecessor and successor
windows, compare connection paths.

The Cypher reads are in cypher/graph/; ranking is the pure function `rank_neighbour_window`, so
a person can replay `graph/neighbour_candidates` in Neo4j Browser and see exactly which
candidates existed and why each was kept or excluded (the diagnostics list every exclusion).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from neo4j.exceptions import DriverError, Neo4jError

from service.db.graph import Graph
from service.pipeline.background import read_in_background
from service.pipeline.plan import Intent, QueryPlan
from service.pipeline.retrieval import Retrieval
from service.settings import PipelineSettings
from service.text.relation_labels import compact_key

__all__ = [
    "INTENT_RELATIONS",
    "GraphContext",
    "Neighbour",
    "build_graph_context",
    "rank_neighbour_window",
]

# Relation kinds each intent prefers (docs/evidence.md); generic prefers none.
INTENT_RELATIONS: dict[Intent, frozenset[str]] = {
    "compare": frozenset({"CONTRASTS_WITH", "ANALOGOUS_TO"}),
    "how_to": frozenset({"PREREQUISITE_OF", "PRECEDES", "DEPENDS_ON"}),
    "causal": frozenset({"CAUSES", "ENABLES"}),
    "definition": frozenset({"IS_A", "PART_OF", "EXAMPLE_OF"}),
    "generic": frozenset(),
}
BIBLIOGRAPHY = frozenset({"CITES"})
_PROVENANCE_WEIGHT = {"front_matter": 0.15, "mermaid": 0.1, "link": 0.0}


class Neighbour(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    relation: str
    direction: str  # "in": a predecessor (neighbour -> anchor); "out": a successor
    confidence: float
    provenance: str
    aligned: bool  # its relation kind is one the question's intent prefers
    score: float
    document_id: str | None
    path: str | None
    reason: str


class Exclusion(msgspec.Struct, frozen=True):
    id: str
    title: str
    relation: str
    reason: str


class GraphDiagnostics(msgspec.Struct, frozen=True, kw_only=True):
    aligned_candidates: int
    misaligned_candidates: int
    fail_open: bool  # nothing aligned existed: structural neighbours were used, and said so
    excluded: tuple[Exclusion, ...]
    preferred_relations: tuple[str, ...]


class GraphContext(msgspec.Struct, frozen=True, kw_only=True):
    available: bool  # False: graph reads failed, the answer uses document context only
    anchor_id: str | None
    anchor_title: str | None
    anchor_reason: str
    degree: dict[str, Any]
    predecessors: tuple[Neighbour, ...]
    successors: tuple[Neighbour, ...]
    diagnostics: GraphDiagnostics | None
    paths: tuple[dict[str, Any], ...]
    error: str | None = None


def choose_anchor(retrieval: Retrieval, plan: QueryPlan) -> tuple[str | None, str | None, str]:
    """The named knowledge point (the first compare operand for compare questions), else the
    knowledge point describing the best hit's document."""
    names = list(retrieval.names)
    if plan.intent == "compare":
        first = [n for n in names if n.operand == 0]
        names = first + [n for n in names if n not in first]
    if names:
        return names[0].id, names[0].title, f"named in the question as {names[0].matched!r}"
    for hit in retrieval.hits:
        if hit.knowledge_point_ids:
            return hit.knowledge_point_ids[0], hit.title, f"describes the top hit {hit.path}"
    return None, None, "no knowledge point named or hit"


def rank_neighbour_window(
    candidates: Iterable[Mapping[str, Any]],
    *,
    anchor_id: str,
    anchor_names: Iterable[str],
    intent: Intent,
    window: int,
    min_confidence: float,
    operand_ids: Sequence[str] = (),
) -> tuple[list[Neighbour], list[Neighbour], GraphDiagnostics]:
    """Predecessor and successor windows, best first, and the diagnostics of the choice.

    Exclusions: bibliography (CITES), confidence below `min_confidence`, self-neighbours and
    anchor equivalents (another id with the anchor's title or alias). Ranking: intent-aligned
    relation kinds first, then confidence, provenance and whether the neighbour has a source
    document. When no aligned candidate exists the windows fail open to structural neighbours.
    """
    preferred = INTENT_RELATIONS[intent]
    anchor_keys = {compact_key(n) for n in anchor_names if n}
    excluded: list[Exclusion] = []
    best: dict[tuple[str, str], Neighbour] = {}
    for row in candidates:
        relation, title = str(row["relation"]), str(row["title"] or row["id"])
        names = {compact_key(title), *(compact_key(a) for a in row.get("aliases") or [])}
        reason = None
        if relation in BIBLIOGRAPHY:
            reason = "bibliography relation (CITES) is never an answer neighbour"
        elif row["id"] == anchor_id:
            reason = "self-neighbour"
        elif names & anchor_keys:
            reason = "anchor-equivalent: same title or alias as the anchor"
        elif float(row["confidence"] or 0) < min_confidence:
            reason = f"confidence {row['confidence']} below {min_confidence}"
        if reason:
            excluded.append(Exclusion(str(row["id"]), title, relation, reason))
            continue
        aligned = relation in preferred
        confidence = float(row["confidence"])
        score = (
            (1.0 if aligned else 0.0)
            + (0.5 if row["id"] in operand_ids else 0.0)
            + confidence
            + _PROVENANCE_WEIGHT.get(str(row["provenance"]), 0.0)
            + (0.1 if row.get("documentId") else 0.0)
        )
        neighbour = Neighbour(
            id=str(row["id"]), title=title, relation=relation, direction=str(row["direction"]),
            confidence=confidence, provenance=str(row["provenance"]), aligned=aligned,
            score=round(score, 4), document_id=row.get("documentId"), path=row.get("path"),
            reason=("intent-aligned " if aligned else "structural ") + f"{relation} {confidence}",
        )  # fmt: skip
        key = (neighbour.id, neighbour.direction)
        if key not in best or best[key].score < neighbour.score:
            best[key] = neighbour
    ranked = sorted(best.values(), key=lambda n: (-n.score, n.title))
    aligned_count = sum(1 for n in ranked if n.aligned)
    fail_open = bool(preferred) and aligned_count == 0
    predecessors = _window(ranked, "in", window, excluded)
    successors = _window(ranked, "out", window, excluded)
    diagnostics = GraphDiagnostics(
        aligned_candidates=aligned_count,
        misaligned_candidates=len(ranked) - aligned_count,
        fail_open=fail_open,
        excluded=tuple(excluded),
        preferred_relations=tuple(sorted(preferred)),
    )
    return predecessors, successors, diagnostics


def _window(
    ranked: list[Neighbour], direction: str, size: int, excluded: list[Exclusion]
) -> list[Neighbour]:
    """Aligned neighbours take the window; a misaligned one is admitted only when this
    direction has no aligned candidate at all (the structural fail-open)."""
    here = [n for n in ranked if n.direction == direction]
    aligned = [n for n in here if n.aligned]
    if not aligned:
        return here[:size]
    excluded.extend(
        Exclusion(n.id, n.title, n.relation, "misaligned with the question's intent")
        for n in here
        if not n.aligned
    )
    return aligned[:size]


def build_graph_context(
    graph: Graph, plan: QueryPlan, retrieval: Retrieval, settings: PipelineSettings
) -> GraphContext:
    anchor_id, anchor_title, anchor_reason = choose_anchor(retrieval, plan)
    if anchor_id is None:
        return GraphContext(
            available=True, anchor_id=None, anchor_title=None, anchor_reason=anchor_reason,
            degree={}, predecessors=(), successors=(), diagnostics=None, paths=(),
        )  # fmt: skip
    operand_ids = [n.id for n in retrieval.names if n.operand is not None]
    try:
        # The three reads need only the anchor and the operands: the profile and the paths
        # are read beside the candidates (each waits on Neo4j).
        degree_read = read_in_background(
            graph, "graph/degree_profile", scope=plan.scope, id=anchor_id
        )
        paths_read = None
        if plan.intent == "compare" and len(set(operand_ids)) >= 2:
            paths_read = read_in_background(
                graph, "graph/connection_paths", scope=plan.scope, source=operand_ids[0],
                target=operand_ids[1],
            )  # fmt: skip
        candidates = graph.read("graph/neighbour_candidates", scope=plan.scope, id=anchor_id)
        degree_rows = degree_read.result()
        paths = paths_read.result() if paths_read is not None else []
    except (DriverError, Neo4jError) as error:
        return GraphContext(
            available=False, anchor_id=anchor_id, anchor_title=anchor_title,
            anchor_reason=anchor_reason, degree={}, predecessors=(), successors=(),
            diagnostics=None, paths=(), error=f"graph unavailable, document-only context: {error}",
        )  # fmt: skip
    anchor_names = [anchor_title or "", anchor_id]
    anchor_names += [a for n in retrieval.names if n.id == anchor_id for a in n.aliases]
    confident = any(float(c["confidence"] or 0) >= settings.high_confidence for c in candidates)
    window = settings.graph_window_deep if plan.depth == "deep" else settings.graph_window
    if plan.depth != "deep" and confident and plan.intent in ("how_to", "causal"):
        window = settings.graph_window_deep  # a high-confidence path may widen the window
    predecessors, successors, diagnostics = rank_neighbour_window(
        candidates, anchor_id=anchor_id, anchor_names=anchor_names, intent=plan.intent,
        window=window, min_confidence=settings.min_relation_confidence,
        operand_ids=operand_ids[1:],
    )  # fmt: skip
    degree = _degree(degree_rows[0] if degree_rows else {})
    ranked_paths = sorted(
        paths,
        key=lambda p: (
            -sum(1 for r in p["relations"] if r in INTENT_RELATIONS[plan.intent]),
            -min(p["confidences"] or [0]),
        ),
    )
    return GraphContext(
        available=True,
        anchor_id=anchor_id,
        anchor_title=anchor_title,
        anchor_reason=anchor_reason,
        degree=degree,
        predecessors=tuple(predecessors),
        successors=tuple(successors),
        diagnostics=diagnostics,
        paths=tuple(ranked_paths),
    )


def _degree(row: Mapping[str, Any]) -> dict[str, Any]:
    outgoing = Counter(row.get("outTypes") or [])
    incoming = Counter(row.get("inTypes") or [])
    return {
        "outDegree": sum(outgoing.values()),
        "inDegree": sum(incoming.values()),
        "outByRelation": dict(sorted(outgoing.items())),
        "inByRelation": dict(sorted(incoming.items())),
        "centralityRank": row.get("centralityRank"),
    }
