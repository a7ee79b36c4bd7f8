"""Evidence contracts shared by the pipeline stages (specification Unit 1).

A Fragment is one piece of source text that may enter the model-visible context pack, with its
provenance (document, path, heading path, exact offsets and lines) and its role. Offsets are
character offsets into the source file: `source[start_offset:end_offset] == text` before any
truncation.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "ROLE_PRIORITY",
    "DecisionStatus",
    "Fragment",
    "Role",
    "SourceBoundary",
    "SourceDecision",
]

Role = Literal[
    "direct_support",
    "parent_context",
    "adjacent_context",
    "graph_neighbor_support",
    "conflict",
    "background",
]
DecisionStatus = Literal[
    "included", "fragment_truncated", "fragment_dropped", "source_window_unavailable"
]
# How far the source was read to build a fragment: the matched span, its section, a local
# window, or the complete document (the maximum source boundary).
SourceBoundary = Literal["span", "section", "window", "full_document"]

# Lower number = admitted first when the budget is short. Conflicts rank right after direct
# support: both sides of a contradiction must survive budget pressure.
ROLE_PRIORITY: dict[str, int] = {
    "direct_support": 0,
    "conflict": 1,
    "parent_context": 2,
    "graph_neighbor_support": 3,
    "adjacent_context": 4,
    "background": 5,
}


class Fragment(msgspec.Struct, frozen=True, kw_only=True):
    id: str  # stable: derived from role, document and offsets (see fragment_id)
    role: Role
    document_id: str
    path: str  # relative to the knowledge base root
    heading_path: tuple[str, ...]
    start_offset: int
    end_offset: int
    start_line: int
    end_line: int
    text: str
    citation_ids: tuple[str, ...]  # ids the pack's id resolver checks against observed evidence
    knowledge_point_id: str | None = None
    source_boundary: SourceBoundary = "span"
    relation: str | None = None  # graph_neighbor_support: e.g. "out:ANALOGOUS_TO"
    priority: float = 0.0  # order within a role, higher first (e.g. retrieval score)
    truncated: bool = False
    conflict_values: tuple[str, ...] = ()  # conflict: the distinct contradicting values, in order
    # A whole procedure (service/pipeline/procedure.py): where each of its steps begins. The pack
    # admits it whole, under PackPolicy.procedure_chars instead of the per-fragment cap.
    step_starts: tuple[int, ...] = ()
    procedure_named: float = 0.0  # the share of the question's terms the procedure names

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def tokens_estimate(self) -> int:
        """Rough token count: ~4 characters per token for Latin text, 1 per CJK character."""
        cjk = sum(1 for ch in self.text if "\u3000" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
        return cjk + (len(self.text) - cjk + 3) // 4


class SourceDecision(msgspec.Struct, frozen=True, kw_only=True):
    fragment_id: str
    role: Role
    status: DecisionStatus
    reason: str
    document_id: str | None = None
    path: str | None = None
