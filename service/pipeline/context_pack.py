"""build_context_pack: the budgeted, model-visible RagContextPack (specification Unit 4).

Pure and deterministic: the same candidates, budget and observed ids give the same pack, in any
input order. Every candidate gets exactly one SourceDecision (in candidate order, followed by the
`source_window_unavailable` decisions handed over by augmentation), and the admitted text never
exceeds `Budget.fragments`, `Budget.total_chars` or the per-fragment cap.

Candidates are considered in pack order: ROLE_PRIORITY, then `priority` descending (NaN last),
then path, document id, offsets and id. The first check a candidate fails decides its fate:

1. Id resolver: its citation ids must be non-empty and all observed by this run's retrieval and
   traversal, else `fragment_dropped` / `unobserved_evidence_id`. Nothing else can enter the pack.
2. Whitespace-only text is `fragment_dropped` / `empty_text`: it would spend a slot on nothing.
3. Duplicate: its (document, offsets) range lies inside text that an admitted fragment of an equal
   or higher-priority role already shows -> `fragment_dropped` / `duplicate_of:<id>` (never for a
   conflict, whose text is its own statement of both sides, not its source range). Only text
   really in the pack counts: a fragment truncated here covers its head and tail ranges, not the
   cut middle, and one that arrived truncated covers nothing. Partial overlaps are admitted.
4. Count: past `Budget.fragments` -> `fragment_dropped` / `fragment_limit`.
5. Size. The per-fragment cap is min(`fragment_chars`, `dominance_share` of `total_chars`) so no
   single item dominates the pack (a whole procedure, `Fragment.step_starts`, may take up to
   `PackPolicy.procedure_chars` instead); a longer fragment is middle-truncated with reason
   `fragment_chars>N` or `dominance_cap>N` (whichever limit is smaller). When the remaining total
   budget is smaller still, the fragment is truncated to the remainder if that is at least
   `min_truncated_chars`, else dropped; the reason is `total_chars`. Later, smaller candidates
   may still fit.

Reserve. Direct support is admitted first, so lower roles can never starve it; but role order
alone would let plentiful direct support take the whole pack and leave no definitions, conflicts
or neighbours. Direct support may therefore use at most the budget minus a reserve, in chars and in
slots: reserve = min(`reserve_share` of the budget, what the eligible other-role candidates could
use after the per-fragment cap). Other roles share the reserve, plus whatever direct support left
unused, in role order. A direct fragment cut or dropped by the reserve gets the reason
`reserved_for_other_roles`. With no other-role candidates the reserve is zero; reserve the other
roles do not use (because they turn out to be duplicates or over the count) stays empty.

Truncation (`middle_truncate`) keeps head and tail, head the larger half, joined by a marker, and
moves each cut back to whitespace when one lies within 10% of that side's length.

`replay_id` hashes the normalised selected evidence: per admitted fragment its role, document,
offsets, the sha256 of the exact text the model sees, and the truncated flag, sorted. It does not
depend on input order, on `priority`, on the budget profile or on time.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from service.pipeline.budgets import Budget
from service.pipeline.evidence import ROLE_PRIORITY, DecisionStatus, Fragment, SourceDecision

__all__ = [
    "DEFAULT_PACK_POLICY",
    "PackPolicy",
    "RagContextPack",
    "build_context_pack",
    "middle_truncate",
    "replay_id",
]

_BOUNDARY_WIDTH = {"span": 0, "section": 1, "window": 2, "full_document": 3}
_REPLAY_VERSION = "rcp/v1"  # bump when the normalised form changes, so old ids never collide


class PackPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """How the pack spends a Budget; the budget itself says how much there is."""

    dominance_share: float = 0.45  # of total_chars: the most one fragment may take
    reserve_share: float = 0.25  # of total_chars and fragments: held back from direct support
    min_truncated_chars: int = 200  # a smaller total-budget remainder drops rather than truncates
    marker: str = " … "  # joins head and tail of a middle-truncated fragment
    # A whole procedure (Fragment.step_starts) may take this many chars instead of the
    # per-fragment cap: a procedure cut in the middle loses the steps a user must not skip.
    procedure_chars: int = 4000


DEFAULT_PACK_POLICY = PackPolicy()


class RagContextPack(msgspec.Struct, frozen=True, kw_only=True):
    replay_id: str  # "rcp_" + 24 hex chars of sha256 over the normalised selected evidence
    budget: Budget
    fragments: tuple[Fragment, ...]  # admitted, in pack order
    decisions: tuple[SourceDecision, ...]  # one per candidate, then the unavailable ones
    total_chars: int
    source_boundary: str  # widest among admitted: full_document > window > section > span; none


class _Admitted(NamedTuple):
    fragment: Fragment
    covered: tuple[tuple[int, int], ...]  # source ranges whose text is in the pack


def build_context_pack(
    candidates: Sequence[Fragment],
    budget: Budget,
    *,
    observed_ids: frozenset[str],
    unavailable: Sequence[SourceDecision] = (),
    policy: PackPolicy = DEFAULT_PACK_POLICY,
) -> RagContextPack:
    if budget.fragments < 1 or budget.fragment_chars < 1 or budget.total_chars < 1:
        raise ValueError(f"budget limits must be positive: {budget}")
    carried = tuple(unavailable)
    for decision in carried:
        if decision.status != "source_window_unavailable":
            raise ValueError(f"not a source_window_unavailable decision: {decision}")

    per_cap, cap_reason = _fragment_cap(budget, policy)
    decided: dict[int, SourceDecision] = {}
    eligible: list[int] = []
    for index, fragment in enumerate(candidates):
        if not fragment.citation_ids or not observed_ids.issuperset(fragment.citation_ids):
            decided[index] = _decide(fragment, "fragment_dropped", "unobserved_evidence_id")
        elif not fragment.text.strip():
            decided[index] = _decide(fragment, "fragment_dropped", "empty_text")
        else:
            eligible.append(index)
    eligible.sort(key=lambda i: _pack_key(candidates[i], i))

    others = [candidates[i] for i in eligible if candidates[i].role != "direct_support"]
    reserve_chars = min(
        int(budget.total_chars * policy.reserve_share),
        sum(min(f.chars, per_cap) for f in others),
    )
    reserve_slots = min(int(budget.fragments * policy.reserve_share), len(others))

    admitted: list[_Admitted] = []
    used = 0
    for index in eligible:
        fragment = candidates[index]
        direct = fragment.role == "direct_support"
        container = _container(fragment, admitted)
        if container is not None:
            decided[index] = _decide(fragment, "fragment_dropped", f"duplicate_of:{container}")
            continue
        if len(admitted) >= budget.fragments:
            decided[index] = _decide(fragment, "fragment_dropped", "fragment_limit")
            continue
        if direct and len(admitted) >= budget.fragments - reserve_slots:
            decided[index] = _decide(fragment, "fragment_dropped", "reserved_for_other_roles")
            continue
        # Direct support is admitted before any other role, so `used` is its own spending.
        remaining = budget.total_chars - used - (reserve_chars if direct else 0)
        scarce = "reserved_for_other_roles" if direct and reserve_chars else "total_chars"
        cap = max(per_cap, policy.procedure_chars) if fragment.step_starts else per_cap
        if fragment.chars <= min(cap, remaining):
            entry = _Admitted(fragment, _covered(fragment))
            decided[index] = _decide(fragment, "included", "within_budget")
        elif cap <= remaining:
            entry = _truncate(fragment, cap, policy.marker)
            decided[index] = _decide(fragment, "fragment_truncated", cap_reason)
        elif remaining >= min(policy.min_truncated_chars, cap):
            entry = _truncate(fragment, remaining, policy.marker)
            decided[index] = _decide(fragment, "fragment_truncated", scarce)
        else:
            decided[index] = _decide(fragment, "fragment_dropped", scarce)
            continue
        admitted.append(entry)
        used += entry.fragment.chars

    fragments = tuple(entry.fragment for entry in admitted)
    return RagContextPack(
        replay_id=replay_id(fragments),
        budget=budget,
        fragments=fragments,
        decisions=tuple(decided[i] for i in range(len(candidates))) + carried,
        total_chars=used,
        source_boundary=max(
            (f.source_boundary for f in fragments), key=_BOUNDARY_WIDTH.__getitem__, default="none"
        ),
    )


def middle_truncate(text: str, limit: int, marker: str = " … ") -> str:
    """`text` cut to at most `limit` chars, keeping head and tail around `marker`."""
    head, tail, joint = _cut(text, limit, marker)
    return text[:head] + joint + text[len(text) - tail :]


def replay_id(fragments: Sequence[Fragment]) -> str:
    rows = sorted(
        (
            f.role,
            f.document_id,
            f.start_offset,
            f.end_offset,
            hashlib.sha256(f.text.encode()).hexdigest(),
            f.truncated,
        )
        for f in fragments
    )
    payload = msgspec.json.encode({"v": _REPLAY_VERSION, "evidence": rows})
    return "rcp_" + hashlib.sha256(payload).hexdigest()[:24]


def _fragment_cap(budget: Budget, policy: PackPolicy) -> tuple[int, str]:
    dominance = max(1, int(budget.total_chars * policy.dominance_share))
    if budget.fragment_chars <= dominance:
        return budget.fragment_chars, f"fragment_chars>{budget.fragment_chars}"
    return dominance, f"dominance_cap>{dominance}"


def _pack_key(fragment: Fragment, index: int) -> tuple[int, float, str, str, int, int, str, int]:
    priority = -fragment.priority if not math.isnan(fragment.priority) else math.inf
    return (
        ROLE_PRIORITY[fragment.role],
        priority,
        fragment.path,
        fragment.document_id,
        fragment.start_offset,
        fragment.end_offset,
        fragment.id,
        index,
    )


def _decide(fragment: Fragment, status: DecisionStatus, reason: str) -> SourceDecision:
    return SourceDecision(
        fragment_id=fragment.id,
        role=fragment.role,
        status=status,
        reason=reason,
        document_id=fragment.document_id,
        path=fragment.path,
    )


def _container(fragment: Fragment, admitted: Sequence[_Admitted]) -> str | None:
    if fragment.role == "conflict":
        return None  # its text states both sides in its own words: never a copy of its range
    rank = ROLE_PRIORITY[fragment.role]
    for entry in admitted:
        other = entry.fragment
        if other.document_id != fragment.document_id or ROLE_PRIORITY[other.role] > rank:
            continue
        if any(
            lo <= fragment.start_offset and fragment.end_offset <= hi for lo, hi in entry.covered
        ):
            return other.id
    return None


def _covered(fragment: Fragment) -> tuple[tuple[int, int], ...]:
    # Offsets describe the text only while it is whole (evidence.py); otherwise claim nothing.
    whole = not fragment.truncated and fragment.chars == fragment.end_offset - fragment.start_offset
    return ((fragment.start_offset, fragment.end_offset),) if whole else ()


def _truncate(fragment: Fragment, limit: int, marker: str) -> _Admitted:
    head, tail, joint = _cut(fragment.text, limit, marker)
    text = fragment.text[:head] + joint + fragment.text[fragment.chars - tail :]
    covered: tuple[tuple[int, int], ...] = ()
    if _covered(fragment):
        start, end = fragment.start_offset, fragment.end_offset
        covered = tuple(
            (lo, hi) for lo, hi in ((start, start + head), (end - tail, end)) if lo < hi
        )
    return _Admitted(msgspec.structs.replace(fragment, text=text, truncated=True), covered)


def _cut(text: str, limit: int, marker: str) -> tuple[int, int, str]:
    """Head length, tail length and joint of `text` truncated to `limit` chars."""
    if len(text) <= limit:
        return len(text), 0, ""
    keep = limit - len(marker)
    if keep < 2:  # no room for head, marker and tail: a plain clip is the honest result
        return max(limit, 0), 0, ""
    head = (keep + 1) // 2
    return _head_boundary(text, head), _tail_boundary(text, keep - head), marker


def _head_boundary(text: str, head: int) -> int:
    """Largest cut <= head, within 10% of it, that ends before whitespace; else head."""
    lowest = head - head // 10
    for cut in range(head, lowest - 1, -1):
        if text[cut].isspace():
            while cut > lowest and text[cut - 1].isspace():
                cut -= 1
            return cut
    return head


def _tail_boundary(text: str, tail: int) -> int:
    """Largest tail length <= tail, within 10% of it, that starts after whitespace; else tail."""
    lowest = tail - tail // 10
    for kept in range(tail, lowest - 1, -1):
        if text[len(text) - kept - 1].isspace():
            while kept > lowest and text[len(text) - kept].isspace():
                kept -= 1
            return kept
    return tail
