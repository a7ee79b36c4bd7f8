"""augment_documents: small-to-big reading around spans and for graph neighbours.

Every selected document is read completely through Cypher (the maximum source boundary); what
leaves this stage are candidate fragments with roles, which the context pack then budgets:
- direct_support: the matched sentence span, exact offsets;
- parent_context: the span's whole section (same heading path), for the sections of the best
  hits only (`parent_sections`), so sections do not crowd out neighbour evidence;
- adjacent_context: a local window of paragraphs around the span, inside its section
  (±5 by default, ±2 inside tables/code/Mermaid, ±7 for causal or deep questions);
- graph_neighbor_support: a neighbour's own text (its lead paragraph and the paragraph that
  best matches the question), read from its complete document;
- background: the anchor document's lead paragraph;
- conflict: contradicting comparable facts found by scanning every paragraph of all selected
  documents (conflicts.py), not only the matched spans; one fragment per contradiction, whose
  text states every value with its source and whose citations are the sentences on each side.
  Facts on the question's subject that qualifiers keep apart (current vs historical, staging vs
  production, ...) are no conflict: their sentences join as direct_support read from the full
  document, each with its qualifier in its own words.
Overlaps are removed by paragraph id; Mermaid and code blocks never enter windows wholesale
unless the span itself is inside one. A neighbour without a readable source document yields a
`source_window_unavailable` decision attributed to graph_neighbor_support, never an error.
A multi-paragraph fragment's text is its paragraphs joined by blank lines; its offsets run from
the first paragraph's start to the last one's end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from service.db.graph import Graph
from service.pipeline.conflicts import (
    Conflict,
    ConflictSettings,
    conflict_text,
    scan_conflicts,
    select_conflicts,
)
from service.pipeline.evidence import Fragment, Role, SourceBoundary, SourceDecision
from service.pipeline.graph_context import GraphContext, Neighbour
from service.pipeline.plan import QueryPlan, asks_for_steps
from service.pipeline.procedure import Procedure, Weighed, weigh_procedures
from service.pipeline.retrieval import Hit, Retrieval
from service.settings import PipelineSettings
from service.text.facts import (
    FACT_LAYOUT,
    DocumentProfile,
    Fact,
    FactSettings,
    NodeFact,
    Passage,
)
from service.text.furniture import page_furniture
from service.text.spans import best_span, citation_id, term_keys

__all__ = [
    "Augmentation", "augment_documents", "document_rows", "fragment_id", "paragraph_citation",
    "passage_of", "stored_profiles",
]  # fmt: skip

_STRUCTURED = frozenset({"table", "code", "mermaid"})
_NEVER_IN_WINDOWS = frozenset({"code", "mermaid"})
Row = Mapping[str, Any]


class Augmentation(msgspec.Struct, frozen=True, kw_only=True):
    fragments: tuple[Fragment, ...]
    unavailable: tuple[SourceDecision, ...]
    observed_ids: frozenset[str]
    documents_read: tuple[str, ...]  # paths read completely
    # The rows of those documents, in reading order: the answer stage quotes from them (each
    # row also holds its stored analysis, which nothing past this stage reads).
    paragraphs: tuple[dict[str, Any], ...] = ()
    procedure_search: ProcedureSearch | None = None  # None: no procedure was looked for


class ProcedureSearch(msgspec.Struct, frozen=True, kw_only=True):
    """Where the whole procedure was looked for and what was weighed (trace `procedureSearch`):
    why a procedure was, or was not, given."""

    searched: tuple[str, ...]  # document paths (an id for one not read), best-ranked first
    weighed: tuple[Weighed, ...]  # every block found in them, the one given marked `given`
    reason: str  # why this procedure, or why none
    chosen: str = ""  # "path > heading > ..." of the procedure given; "" for none


def fragment_id(role: str, document_id: str, start: int, end: int) -> str:
    digest = hashlib.sha256(f"{role}\0{document_id}\0{start}\0{end}".encode()).hexdigest()
    return "f_" + digest[:16]


def paragraph_citation(row: Row) -> str:
    return citation_id(str(row["paragraphId"]), 0, len(str(row["text"])))


def augment_documents(
    graph: Graph,
    plan: QueryPlan,
    retrieval: Retrieval,
    context: GraphContext,
    settings: PipelineSettings,
    conflict_settings: ConflictSettings | None = None,
) -> Augmentation:
    neighbours = [*context.predecessors, *context.successors]
    wanted = list(
        dict.fromkeys(
            [h.document_id for h in retrieval.hits]
            + [n.document_id for n in neighbours if n.document_id]
        )
    )
    searched = _procedure_documents(retrieval, plan, settings)
    rows = document_rows(graph, list(dict.fromkeys(wanted + searched)))
    rows, furniture = without_furniture(rows)
    documents: dict[str, list[Row]] = {}
    for row in rows:
        documents.setdefault(str(row["documentId"]), []).append(row)
    procedure, procedure_search = _procedure_fragment(documents, searched, retrieval, plan)
    # A document read only to look for the procedure stays out of the evidence (and out of the
    # conflict scan) unless the procedure is its own.
    kept = {*wanted, *([procedure.document_id] if procedure is not None else [])}
    rows = [r for r in rows if r["documentId"] in kept]
    documents = {d: paragraphs for d, paragraphs in documents.items() if d in kept}
    observed = {h.citation_id for h in retrieval.hits}
    observed |= {paragraph_citation(r) for r in rows}

    fragments: list[Fragment] = []
    used: dict[str, set[str]] = {}  # document id -> paragraph ids already in a fragment
    sections: set[tuple[str, tuple[str, ...]]] = set()
    radius = _radius(plan, settings)
    for hit in retrieval.hits:
        if hit.paragraph_id in furniture:
            continue
        paragraphs = documents.get(hit.document_id, [])
        taken = used.setdefault(hit.document_id, set())
        fragments.append(_direct(hit))
        # The span's whole section is its parent context (the span stays a fragment of its own;
        # the pack drops a section only if it adds nothing beyond spans already admitted).
        if (hit.document_id, hit.heading_path) not in sections and len(
            sections
        ) < settings.parent_sections:
            sections.add((hit.document_id, hit.heading_path))
            section = [
                r for r in paragraphs
                if tuple(r["headingPath"] or ()) == hit.heading_path
                and (r["kind"] not in _NEVER_IN_WINDOWS or r["paragraphId"] == hit.paragraph_id)
            ]  # fmt: skip
            if section and (len(section) > 1 or len(str(section[0]["text"])) > len(hit.span_text)):
                fragments.append(_joined("parent_context", section, hit, "section", hit.score))
            taken.update(str(r["paragraphId"]) for r in section)
        taken.add(hit.paragraph_id)
        window = _window(paragraphs, hit, radius, taken, settings.window_paragraphs_structured)
        if window:
            fragments.append(_joined("adjacent_context", window, hit, "window", hit.score))
            taken.update(r["paragraphId"] for r in window)

    if procedure is not None:
        fragments.append(procedure)

    unavailable: list[SourceDecision] = []
    for neighbour in neighbours:
        paragraphs = documents.get(neighbour.document_id or "", [])
        if not paragraphs:
            unavailable.append(_unavailable(neighbour))
            continue
        fragment = _neighbour_fragment(neighbour, paragraphs, plan, used)
        if fragment is not None:
            fragments.append(fragment)

    anchor_docs = [
        h.document_id for h in retrieval.hits if context.anchor_id in h.knowledge_point_ids
    ]
    for document_id in anchor_docs[:1]:
        lead = _lead(documents.get(document_id, []), used.setdefault(document_id, set()))
        if lead is not None:
            fragments.append(_single("background", lead, "full_document", 0.0, context.anchor_id))
            used[document_id].add(str(lead["paragraphId"]))

    scanned = _conflict_fragments(
        documents, retrieval, neighbours, plan, conflict_settings or ConflictSettings()
    )
    fragments += scanned
    observed |= {c for fragment in scanned for c in fragment.citation_ids}

    return Augmentation(
        fragments=tuple(fragments),
        unavailable=tuple(unavailable),
        observed_ids=frozenset(observed),
        documents_read=tuple(dict.fromkeys(str(r["path"]) for r in rows)),
        paragraphs=tuple(rows),
        procedure_search=procedure_search,
    )


def _procedure_fragment(
    documents: Mapping[str, Sequence[Row]],
    searched: Sequence[str],
    retrieval: Retrieval,
    plan: QueryPlan,
) -> tuple[Fragment | None, ProcedureSearch | None]:
    """A how-to question's whole procedure, as direct support ranked above every span: the
    best-scored one of the `searched` documents (procedure.py), a place lower in the ranking
    costing a quarter point. A request without a how-to cue ("hang the GreenLoop in my
    garage", "saving the router configuration to a file") asks for it as much as "how do I ..."
    does. A question with no intent cue and no asked-for value gets one only when the best hit
    is one of the steps of an ordered (not bulleted) procedure whose headings name some of it.
    With it, what the search weighed (trace)."""
    if not searched:
        return None, None
    asked = asks_for_steps(plan)
    hit_ids = [h.paragraph_id for h in retrieval.hits]
    found: list[tuple[int, Procedure]] = []
    weighed: list[tuple[Weighed, ...]] = []  # per searched document
    for rank, d in enumerate(searched):
        best_here, blocks = weigh_procedures(
            documents.get(d, []), hit_ids, plan.terms, asked=asked and rank == 0, query=plan.query
        )
        weighed.append(blocks)
        if best_here is not None:
            found.append((rank, best_here))
    paths = {r.document_id: r.path for r in retrieval.ranked} | {
        d: str(rows[0]["path"]) for d, rows in documents.items() if rows
    }
    search = ProcedureSearch(
        searched=tuple(paths.get(d, d) for d in searched),
        weighed=_given_in(weighed, None),
        reason="no block qualifies",
    )
    if not found:
        return None, search
    rank, best = max(found, key=lambda f: f[1].score - 0.25 * f[0])
    chosen = " > ".join((str(best.rows[0]["path"]), *best.heading_path))
    inside = any(str(r["paragraphId"]) == hit_ids[0] for r in best.rows)
    # A question without a cue is answered by a procedure only when it holds the best hit (a
    # bulleted list of references or notes is no procedure).
    if not asked and not (inside and best.layout != "bulleted" and best.named >= 0.3):
        reason = (f"not asked for steps: the best-scored procedure, {chosen}, does not hold the "
                  "best hit, is a bulleted list or names under 0.3 of the question")  # fmt: skip
        return None, msgspec.structs.replace(search, reason=reason)
    top = retrieval.hits[0]
    kp = next(
        (
            h.knowledge_point_ids[0]
            for h in retrieval.hits
            if h.document_id == best.rows[0]["documentId"] and h.knowledge_point_ids
        ),
        None,
    )
    fragment = _fragment("direct_support", best.rows, "section", top.score + 1.0, kp)
    if best.span is not None:
        fragment = _within_span(fragment, best.rows, best.span)
    fragment = msgspec.structs.replace(
        fragment,
        step_starts=best.step_starts,
        heading_path=best.heading_path,
        procedure_named=best.named,
    )
    reason = "the best score, less a quarter point per place in the document ranking"
    given = _given_in(weighed, rank)
    return fragment, msgspec.structs.replace(search, weighed=given, chosen=chosen, reason=reason)


def _given_in(weighed: Sequence[tuple[Weighed, ...]], rank: int | None) -> tuple[Weighed, ...]:
    """The blocks weighed in every searched document, the procedure given (the best of the
    document at `rank`) still marked `given`, the other documents' best ones not."""
    return tuple(
        msgspec.structs.replace(w, given=False) if w.given and r != rank else w
        for r, blocks in enumerate(weighed) for w in blocks
    )  # fmt: skip


def _within_span(fragment: Fragment, rows: Sequence[Row], span: tuple[int, int]) -> Fragment:
    """The fragment cut to a procedure that is part of its paragraphs (one task of running
    text): its text, offsets and lines from `span[0]` to `span[1]`."""
    lo, hi = span
    rows = [r for r in rows if int(r["startOffset"]) < hi and int(r["endOffset"]) > lo]
    first, last = rows[0], rows[-1]
    head = max(lo - int(first["startOffset"]), 0)
    pieces = [str(r["text"])[max(lo - int(r["startOffset"]), 0) : hi - int(r["startOffset"])]
              for r in rows]  # fmt: skip
    return msgspec.structs.replace(
        fragment,
        id=fragment_id(fragment.role, fragment.document_id, lo, hi),
        start_offset=lo,
        end_offset=min(hi, int(last["endOffset"])),
        start_line=int(first["startLine"]) + str(first["text"])[:head].count("\n"),
        end_line=int(last["startLine"])
        + str(last["text"])[: hi - int(last["startOffset"])].rstrip().count("\n"),
        text="\n\n".join(p for p in pieces if p),
    )


def _procedure_documents(
    retrieval: Retrieval, plan: QueryPlan, settings: PipelineSettings
) -> list[str]:
    """Where the procedure is looked for. For a how-to or a request: the first
    `procedure_documents` of the fused document ranking, past the documents the evidence spans
    came from (a page named by its heading alone, "Backflushing the group head", ranks behind
    pages that repeat the question's other words). For a question without a cue: the hit
    documents only, since its procedure must hold the best hit."""
    if not retrieval.hits or settings.procedure_documents <= 0:
        return []
    if asks_for_steps(plan):
        return [d for d, _ in retrieval.documents[: settings.procedure_documents]]
    if plan.intent != "generic" or plan.answer_type is not None:
        return []
    hit_documents = dict.fromkeys(h.document_id for h in retrieval.hits)
    return list(hit_documents)[: settings.procedure_documents]


def _radius(plan: QueryPlan, settings: PipelineSettings) -> int:
    if plan.depth == "deep" or plan.intent == "causal":
        return settings.window_paragraphs_wide
    return settings.window_paragraphs


def _direct(hit: Hit) -> Fragment:
    line = hit.start_line + hit.text[: hit.span_start - hit.start_offset].count("\n")
    return Fragment(
        id=fragment_id("direct_support", hit.document_id, hit.span_start, hit.span_end),
        role="direct_support",
        document_id=hit.document_id,
        path=hit.path,
        heading_path=hit.heading_path,
        start_offset=hit.span_start,
        end_offset=hit.span_end,
        start_line=line,
        end_line=line + hit.span_text.count("\n"),
        text=hit.span_text,
        citation_ids=(hit.citation_id,),
        knowledge_point_id=hit.knowledge_point_ids[0] if hit.knowledge_point_ids else None,
        source_boundary="span",
        priority=hit.score,
    )


def _window(
    paragraphs: Sequence[Row],
    hit: Hit,
    radius: int,
    taken: set[str],
    structured_radius: int,
) -> list[Row]:
    """Paragraphs within `radius` of the hit inside its top section, in reading order
    (`structured_radius` inside tables, code and Mermaid)."""
    if hit.kind in _STRUCTURED:
        radius = min(radius, structured_radius)
    bound = hit.heading_path[:2]
    near = [
        r for r in paragraphs
        if abs(int(r["ordinal"]) - hit.ordinal) <= radius
        and tuple(r["headingPath"] or ())[: len(bound)] == bound
        and r["paragraphId"] not in taken
        and (r["kind"] not in _NEVER_IN_WINDOWS or hit.kind in _NEVER_IN_WINDOWS)
    ]  # fmt: skip
    return near


def _joined(
    role: Role, rows: Sequence[Row], hit: Hit, boundary: SourceBoundary, priority: float
) -> Fragment:
    kp = hit.knowledge_point_ids[0] if hit.knowledge_point_ids else None
    return _fragment(role, rows, boundary, priority, kp)


def _single(
    role: Role, row: Row, boundary: SourceBoundary, priority: float, kp: str | None
) -> Fragment:
    return _fragment(role, [row], boundary, priority, kp)


def _fragment(
    role: Role,
    rows: Sequence[Row],
    boundary: SourceBoundary,
    priority: float,
    kp: str | None,
    relation: str | None = None,
) -> Fragment:
    """One fragment over consecutive-in-reading-order paragraph rows of one document."""
    first, last = rows[0], rows[-1]
    document_id = str(first["documentId"])
    start, end = int(first["startOffset"]), int(last["endOffset"])
    return Fragment(
        id=fragment_id(role, document_id, start, end),
        role=role,
        document_id=document_id,
        path=str(first["path"]),
        heading_path=tuple(first["headingPath"] or ()),
        start_offset=start,
        end_offset=end,
        start_line=int(first["startLine"]),
        end_line=int(last["endLine"]),
        text="\n\n".join(str(r["text"]) for r in rows),
        citation_ids=tuple(paragraph_citation(r) for r in rows),
        knowledge_point_id=kp,
        source_boundary=boundary,
        relation=relation,
        priority=priority,
    )


def _lead(paragraphs: Iterable[Row], taken: set[str]) -> Row | None:
    return next(
        (r for r in paragraphs if r["kind"] == "paragraph" and r["paragraphId"] not in taken), None
    )


def _neighbour_fragment(
    neighbour: Neighbour, paragraphs: Sequence[Row], plan: QueryPlan, used: dict[str, set[str]]
) -> Fragment | None:
    """The neighbour's own words: its lead paragraph, plus the paragraph best matching the
    question when that is a different one (read from its complete document)."""
    document_id = str(paragraphs[0]["documentId"])
    taken = used.setdefault(document_id, set())
    prose = [
        r
        for r in paragraphs
        if r["kind"] not in _NEVER_IN_WINDOWS and r["paragraphId"] not in taken
    ]
    if not prose:
        return None
    lead = _lead(prose, set()) or prose[0]
    keys = term_keys(plan.terms)
    best = max(
        prose, key=lambda r: (_relevance(str(r["text"]), plan.terms, keys), -int(r["ordinal"]))
    )
    rows = [lead] if best is lead else sorted([lead, best], key=lambda r: int(r["ordinal"]))
    taken.update(str(r["paragraphId"]) for r in rows)
    relation = f"{neighbour.direction}:{neighbour.relation}"
    return _fragment(
        "graph_neighbor_support", rows, "full_document", neighbour.score, neighbour.id, relation
    )


def _relevance(text: str, terms: Sequence[str], keys: Sequence[str]) -> float:
    """best_span's score, 0 without splitting a text none of the terms' `keys` occur in."""
    lower = text.lower()
    return best_span(text, terms).score if any(key in lower for key in keys) else 0.0


def _conflict_fragments(
    documents: Mapping[str, Sequence[Row]],
    retrieval: Retrieval,
    neighbours: Sequence[Neighbour],
    plan: QueryPlan,
    settings: ConflictSettings,
) -> list[Fragment]:
    """Conflict fragments, and the sentences of condition-qualified facts, from a scan of every
    paragraph of the selected documents."""
    passages = [passage_of(r) for rows in documents.values() for r in rows]
    knowledge_points = {n.document_id: n.id for n in neighbours if n.document_id}
    knowledge_points |= {h.document_id: h.knowledge_point_ids[0] for h in retrieval.hits
                         if h.knowledge_point_ids}  # fmt: skip
    direct = {h.document_id for h in retrieval.hits}
    profiles = stored_profiles(r for rows in documents.values() for r in rows)
    scan = scan_conflicts(passages, settings, focus=direct, profiles=profiles)
    chosen = select_conflicts(
        scan.conflicts, terms=plan.terms, direct_documents=direct, limit=settings.max_conflicts
    )
    fragments = [
        _conflict_fragment(conflict, rank, knowledge_points.get(conflict.sides[0].document_id),
                           settings.quote_chars)
        for rank, conflict in enumerate(chosen)
    ]  # fmt: skip
    qualified = select_conflicts(
        scan.qualified, terms=plan.terms, direct_documents=direct,
        limit=settings.max_qualified_subjects,
    )  # fmt: skip
    best = max((h.score for h in retrieval.hits), default=0.0)
    sentences = {(f.document_id, f.sentence_start, f.paragraph_id): f
                 for q in qualified for f in q.sides}  # fmt: skip
    fragments += [
        _fact_fragment(fact, knowledge_points.get(fact.document_id), best)
        for fact in sentences.values()
    ]
    return fragments


def document_rows(graph: Graph, document_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Every paragraph of the documents (evidence/document_paragraphs), one row each with its
    document's id, path, title and profile, and its own Fact nodes, in document and reading
    order."""
    if not document_ids:
        return []
    rows: list[dict[str, Any]] = []
    for document in graph.read("evidence/document_paragraphs", documentIds=document_ids,
                               factLayout=FACT_LAYOUT):  # fmt: skip
        facts = _paragraph_facts(document["facts"])
        profile = _profile(document["profile"])
        rows += [
            {"documentId": document["documentId"], "path": document["path"],
             "title": document["title"], "documentVersion": document["version"],
             "documentProfile": profile, **paragraph,
             "facts": None if facts is None else facts.get(paragraph["paragraphId"], [])}
            for paragraph in document["paragraphs"]
        ]  # fmt: skip
    return rows


def without_furniture(
    rows: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], frozenset[str]]:
    """The rows without the running heads and feet of a converted PDF (neither evidence nor
    facts), and those paragraph ids. A document read without them no longer matches the
    profile stored of all its paragraphs, so its profile is dropped."""
    furniture = page_furniture(rows)
    trimmed = {r["documentId"] for r in rows if r["paragraphId"] in furniture}
    kept = [{**r, "documentProfile": None} if r["documentId"] in trimmed else r
            for r in rows if r["paragraphId"] not in furniture]  # fmt: skip
    return kept, furniture


def _paragraph_facts(
    facts: Sequence[Mapping[str, Any]] | None,
) -> dict[str, list[Mapping[str, Any]]] | None:
    """A document's Fact nodes by paragraph, in index order; None when it has none to trust
    (not written in FACT_LAYOUT, or as many as the per-document cap: the cap cut them over all
    its paragraphs, and a scan without its running heads, page_furniture, would cut
    elsewhere)."""
    if facts is None or len(facts) >= _NODE_FACT_CAP:
        return None
    found: dict[str, list[Mapping[str, Any]]] = {}
    for fact in sorted(facts, key=lambda f: f["index"]):
        found.setdefault(fact["paragraphId"], []).append(fact)
    return found


def stored_profiles(rows: Iterable[Row]) -> dict[str, DocumentProfile]:
    """The profiles read with the documents' rows (document_rows) that still cover every row:
    the conflict scan reads them instead of every paragraph's words."""
    return {str(r["documentId"]): r["documentProfile"] for r in rows
            if r.get("documentProfile") is not None}  # fmt: skip


def _profile(stored: Mapping[str, Any] | None) -> DocumentProfile | None:
    if stored is None or stored["words"] is None:
        return None
    return DocumentProfile(
        words=frozenset(stored["words"].split()),
        anchors=frozenset(stored["anchors"].split()),
        tokens=stored["tokens"],
    )


# The cap the Fact nodes were written under: ingest extracts with the default settings.
_NODE_FACT_CAP = FactSettings().max_facts_per_document


def passage_of(row: Row) -> Passage:
    """A row of evidence/document_paragraphs as the conflict scan reads it."""
    facts = row.get("facts")
    return Passage(
        document_id=str(row["documentId"]), path=str(row["path"]),
        paragraph_id=str(row["paragraphId"]), text=str(row["text"]),
        start_offset=int(row["startOffset"]), start_line=int(row["startLine"]),
        kind=str(row["kind"]), analysis=bytes(row.get("analysis") or b""),
        heading_path=tuple(row.get("headingPath") or ()),
        facts=None if facts is None else tuple(map(_node_fact, facts)),
    )  # fmt: skip


def _node_fact(row: Mapping[str, Any]) -> NodeFact:
    """A Fact node's map: its scope is its `conditions` less the `contextual` ones, each stored
    as "dimension=value" (a dimension holds no "=")."""
    added = set(row["contextual"])
    scope = tuple(
        (dimension, value)
        for dimension, _, value in (c.partition("=") for c in row["conditions"] if c not in added)
    )
    return NodeFact(index=row["index"], kind=row["kind"], key=row["key"], norm=row["norm"],
                    scope=scope)  # fmt: skip


def _fact_fragment(fact: Fact, kp: str | None, priority: float) -> Fragment:
    """A condition-qualified fact's own sentence, found by the full-document scan; it ranks with
    the best span so the qualifier is never cut away from its value."""
    return _sentence_fragment(fact, "direct_support", "direct_support", fact.sentence, (fact,), kp,
                              priority)  # fmt: skip


def _conflict_fragment(conflict: Conflict, rank: int, kp: str | None, quote_chars: int) -> Fragment:
    """Placed on its first side's sentence; the text names every side, cited by all of them."""
    return msgspec.structs.replace(
        _sentence_fragment(
            conflict.sides[0], "conflict", f"conflict\0{conflict.key}",
            conflict_text(conflict, quote_chars), conflict.sides, kp,
            -float(rank),  # select_conflicts ranks the most relevant first
        ),
        conflict_values=conflict.values,
    )  # fmt: skip


def _sentence_fragment(
    fact: Fact,
    role: Role,
    id_role: str,
    text: str,
    cited: Sequence[Fact],
    kp: str | None,
    priority: float,
) -> Fragment:
    """A full-document fragment at one fact's sentence, citing the sentences of `cited`."""
    start = fact.start_offset
    return Fragment(
        id=fragment_id(id_role, fact.document_id, start, start + len(fact.sentence)),
        role=role,
        document_id=fact.document_id,
        path=fact.path,
        heading_path=(),
        start_offset=start,
        end_offset=start + len(fact.sentence),
        start_line=fact.line,
        end_line=fact.line + fact.sentence.count("\n"),
        text=text,
        citation_ids=tuple(
            dict.fromkeys(
                citation_id(c.paragraph_id, c.sentence_start, c.sentence_end) for c in cited
            )
        ),
        knowledge_point_id=kp,
        source_boundary="full_document",
        priority=priority,
    )


def _unavailable(neighbour: Neighbour) -> SourceDecision:
    return SourceDecision(
        fragment_id=fragment_id("graph_neighbor_support", neighbour.id, 0, 0),
        role="graph_neighbor_support",
        status="source_window_unavailable",
        reason=f"knowledge point {neighbour.title!r} ({neighbour.relation}) has no readable "
        "source document; only its title and relation are known",
        document_id=neighbour.document_id,
        path=neighbour.path,
    )
