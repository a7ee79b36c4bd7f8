"""build_context_pack: budgets, truncation, decisions, id resolver, dedupe and replay ids."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import get_args

import msgspec
import pytest

from service.pipeline.budgets import BUDGETS, Budget, BudgetProfile
from service.pipeline.context_pack import (
    RagContextPack,
    build_context_pack,
    middle_truncate,
    replay_id,
)
from service.pipeline.evidence import ROLE_PRIORITY, Fragment, Role, SourceBoundary, SourceDecision

BASE = BUDGETS["base"]
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")


def _text(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    out = ""
    while len(out) < chars:
        out += rng.choice(WORDS) + " "
    return out[:chars]


def _frag(
    role: Role,
    start: int,
    text: str,
    *,
    doc: str = "d1",
    priority: float = 0.0,
    boundary: SourceBoundary = "span",
    cited: tuple[str, ...] | None = None,
) -> Fragment:
    end = start + len(text)
    return Fragment(
        id=f"{role}:{doc}:{start}-{end}",
        role=role,
        document_id=doc,
        path=f"s/{doc}.md",
        heading_path=("Top",),
        start_offset=start,
        end_offset=end,
        start_line=1,
        end_line=2,
        text=text,
        citation_ids=(f"p:{doc}:{start}",) if cited is None else cited,
        source_boundary=boundary,
        priority=priority,
    )


def _observed(*fragments: Fragment) -> frozenset[str]:
    return frozenset(c for f in fragments for c in f.citation_ids)


def _pack(fragments: list[Fragment], budget: Budget = BASE) -> RagContextPack:
    return build_context_pack(fragments, budget, observed_ids=_observed(*fragments))


def _by_id(pack: RagContextPack) -> dict[str, SourceDecision]:
    return {d.fragment_id: d for d in pack.decisions}


def test_happy_path_direct_and_graph_neighbour_are_included() -> None:
    neighbour = _frag(
        "graph_neighbor_support", 0, _text(600, 2), doc="d2", boundary="full_document"
    )
    direct = _frag("direct_support", 100, _text(300, 1), priority=0.9)
    pack = _pack([neighbour, direct])

    assert [f.id for f in pack.fragments] == [direct.id, neighbour.id]  # role priority
    assert pack.fragments == (direct, neighbour)  # untouched
    assert [(d.fragment_id, d.status, d.reason, d.role) for d in pack.decisions] == [
        (neighbour.id, "included", "within_budget", "graph_neighbor_support"),
        (direct.id, "included", "within_budget", "direct_support"),
    ]
    assert pack.total_chars == 900
    assert pack.source_boundary == "full_document"
    assert re.fullmatch(r"rcp_[0-9a-f]{24}", pack.replay_id)
    assert pack.budget == BASE
    msgspec.json.encode(pack)  # the trace stores it as JSON


def test_oversized_parent_section_is_middle_truncated_and_marked() -> None:
    body = "HEAD-START " + _text(2800, 3) + " TAIL-END"
    direct = _frag("direct_support", 0, _text(200, 4))
    parent = _frag("parent_context", 0, body, boundary="section")
    pack = _pack([direct, parent])

    kept = pack.fragments[1]
    assert kept.id == parent.id and kept.truncated and not direct.truncated
    assert len(kept.text) <= BASE.fragment_chars
    assert len(kept.text) >= BASE.fragment_chars * 0.9  # the cut moved only to nearby whitespace
    assert kept.text.startswith("HEAD-START ") and kept.text.endswith(" TAIL-END")
    assert " … " in kept.text
    assert _by_id(pack)[parent.id].status == "fragment_truncated"
    assert _by_id(pack)[parent.id].reason == "fragment_chars>1400"
    assert pack.total_chars == 200 + len(kept.text)
    assert pack.source_boundary == "section"


def test_many_neighbours_are_dropped_by_role_priority_and_fragment_limit() -> None:
    direct = _frag("direct_support", 0, _text(150, 5))
    neighbours = [
        _frag("graph_neighbor_support", 0, _text(100, i), doc=f"n{i:02d}", priority=i / 100)
        for i in range(20)
    ]
    adjacent = [
        _frag("adjacent_context", 1000 + 200 * i, _text(100, 50 + i), priority=9.0)
        for i in range(4)
    ]
    pack = _pack([*adjacent, *neighbours, direct])

    assert len(pack.fragments) == BASE.fragments == 14
    assert pack.fragments[0] == direct
    # 13 slots left: the neighbours with the highest priorities; adjacent context ranks lower.
    assert [f.id for f in pack.fragments[1:]] == [n.id for n in reversed(neighbours[7:])]
    decisions = _by_id(pack)
    for dropped in [*neighbours[:7], *adjacent]:
        assert (decisions[dropped.id].status, decisions[dropped.id].reason) == (
            "fragment_dropped",
            "fragment_limit",
        )
    assert [d.fragment_id for d in pack.decisions] == [
        f.id for f in [*adjacent, *neighbours, direct]
    ]


def _random_candidates(rng: random.Random) -> list[Fragment]:
    out = []
    for i in range(rng.randint(0, 40)):
        doc = f"d{rng.randint(0, 4)}"
        start = rng.randint(0, 5000)
        text = _text(rng.choice([0, 5, 150, 400, 1000, 1399, 1400, 1401, 2500, 6000]), i)
        fragment = _frag(
            rng.choice(get_args(Role)),
            start,
            text,
            doc=doc,
            priority=rng.random(),
            boundary=rng.choice(get_args(SourceBoundary)),
        )
        if rng.random() < 0.1:
            fragment = msgspec.structs.replace(fragment, citation_ids=("never-seen",))
        out.append(fragment)
    return out


@pytest.mark.parametrize("profile", ["base", "causal", "deep"])
def test_budgets_hold_for_random_candidate_sets(profile: BudgetProfile) -> None:
    budget = BUDGETS[profile]
    rng = random.Random(f"context-pack-{profile}")
    for _ in range(200):
        candidates = _random_candidates(rng)
        observed = frozenset(c for f in candidates for c in f.citation_ids if c != "never-seen")
        pack = build_context_pack(candidates, budget, observed_ids=observed)

        assert pack.total_chars == sum(len(f.text) for f in pack.fragments)
        assert pack.total_chars <= budget.total_chars
        assert len(pack.fragments) <= budget.fragments
        assert all(len(f.text) <= budget.fragment_chars for f in pack.fragments)
        assert [d.fragment_id for d in pack.decisions] == [f.id for f in candidates]
        admitted = Counter(f.id for f in pack.fragments)
        kept = Counter(d.fragment_id for d in pack.decisions if d.status != "fragment_dropped")
        assert admitted == kept
        assert all(c in observed for f in pack.fragments for c in f.citation_ids)
        keys = [(ROLE_PRIORITY[f.role], -f.priority) for f in pack.fragments]
        assert keys == sorted(keys)
        shuffled = list(candidates)
        rng.shuffle(shuffled)
        again = build_context_pack(shuffled, budget, observed_ids=observed)
        assert again.fragments == pack.fragments and again.replay_id == pack.replay_id


def test_no_single_fragment_exceeds_the_dominance_cap() -> None:
    loose = Budget(profile="base", fragments=6, fragment_chars=5000, total_chars=6000)
    big = _frag("direct_support", 0, _text(5000, 6))
    other = _frag("parent_context", 0, _text(5000, 7), doc="d2")
    pack = _pack([big, other], loose)

    assert all(len(f.text) <= 2700 for f in pack.fragments)  # 45% of 6000
    assert _by_id(pack)[big.id].reason == "dominance_cap>2700"
    assert pack.fragments[0].text.startswith(big.text[:100])
    assert pack.fragments[0].text.endswith(big.text[-100:])


def test_unobserved_evidence_ids_are_rejected() -> None:
    good = _frag("direct_support", 0, _text(100, 8))
    forged = _frag("direct_support", 500, _text(100, 9), cited=("p:d1:500", "p:elsewhere"))
    bare = _frag("parent_context", 0, _text(100, 10), doc="d3", cited=())
    pack = build_context_pack(
        [forged, good, bare], BASE, observed_ids=frozenset({"p:d1:0", "p:d1:500"})
    )

    assert pack.fragments == (good,)
    decisions = _by_id(pack)
    for rejected in (forged, bare):
        assert (decisions[rejected.id].status, decisions[rejected.id].reason) == (
            "fragment_dropped",
            "unobserved_evidence_id",
        )


def test_contained_window_is_dropped_as_duplicate_but_partial_overlap_is_kept() -> None:
    parent = _frag("parent_context", 100, _text(900, 11), boundary="section")
    inside = _frag("adjacent_context", 300, parent.text[200:500], boundary="window")
    overlapping = _frag("adjacent_context", 800, _text(400, 12), boundary="window")
    direct = _frag("direct_support", 200, parent.text[100:200])  # higher role: never a duplicate
    pack = _pack([inside, overlapping, parent, direct])

    decisions = _by_id(pack)
    assert (decisions[inside.id].status, decisions[inside.id].reason) == (
        "fragment_dropped",
        f"duplicate_of:{parent.id}",
    )
    assert decisions[overlapping.id].status == "included"
    assert decisions[direct.id].status == "included"
    assert [f.id for f in pack.fragments] == [direct.id, parent.id, overlapping.id]


def test_text_cut_from_a_truncated_container_is_not_a_duplicate() -> None:
    parent = _frag("parent_context", 0, _text(3000, 13), boundary="section")
    middle = _frag("adjacent_context", 1400, parent.text[1400:1600], boundary="window")
    head = _frag("adjacent_context", 10, parent.text[10:200], boundary="window")
    pack = _pack([parent, middle, head])

    decisions = _by_id(pack)
    assert decisions[parent.id].status == "fragment_truncated"
    assert decisions[middle.id].status == "included"  # its text is no longer in the pack
    assert decisions[head.id].reason == f"duplicate_of:{parent.id}"  # still shown by the head


def test_replay_id_depends_on_evidence_not_on_order_priority_or_time() -> None:
    a = _frag("direct_support", 0, _text(300, 14))
    b = _frag("graph_neighbor_support", 0, _text(300, 15), doc="d2")
    first = _pack([a, b])
    second = _pack([b, msgspec.structs.replace(a, priority=5.0)])
    assert first.replay_id == second.replay_id == replay_id([b, a])

    edited = msgspec.structs.replace(b, text=b.text[:-1] + "!")
    assert _pack([a, edited]).replay_id != first.replay_id
    assert replay_id([a]) != replay_id([a, b])
    assert replay_id([msgspec.structs.replace(a, truncated=True)]) != replay_id([a])


def test_unavailable_decisions_are_carried_over() -> None:
    direct = _frag("direct_support", 0, _text(200, 16))
    lost = SourceDecision(
        fragment_id="graph_neighbor_support:n1:0-0",
        role="graph_neighbor_support",
        status="source_window_unavailable",
        reason="source_resolver_returned_no_content:graph_neighbor_support",
        document_id="n1",
        path="s/n1.md",
    )
    pack = build_context_pack([direct], BASE, observed_ids=_observed(direct), unavailable=[lost])
    assert pack.decisions == (_by_id(pack)[direct.id], lost)
    assert pack.decisions[1].role == "graph_neighbor_support"
    assert pack.fragments == (direct,)

    with pytest.raises(ValueError, match="source_window_unavailable"):
        build_context_pack(
            [direct],
            BASE,
            observed_ids=_observed(direct),
            unavailable=[msgspec.structs.replace(lost, status="fragment_dropped")],
        )


def test_empty_input_gives_an_empty_pack() -> None:
    pack = build_context_pack([], BUDGETS["deep"], observed_ids=frozenset())
    assert pack.fragments == () and pack.decisions == ()
    assert pack.total_chars == 0 and pack.source_boundary == "none"
    assert pack.replay_id == replay_id([]) and pack.replay_id.startswith("rcp_")


def test_direct_support_leaves_a_reserve_for_other_roles() -> None:
    directs = [
        _frag("direct_support", 2000 * i, _text(1400, 20 + i), priority=-i) for i in range(6)
    ]
    neighbour = _frag("graph_neighbor_support", 0, _text(1000, 30), doc="n1")
    pack = _pack([*directs, neighbour])

    decisions = _by_id(pack)
    # reserve = min(25% of 5600, the neighbour's 1000) -> direct support may use 4600 chars.
    assert [decisions[d.id].status for d in directs[:3]] == ["included"] * 3
    assert (decisions[directs[3].id].status, decisions[directs[3].id].reason) == (
        "fragment_truncated",
        "reserved_for_other_roles",
    )
    assert len(pack.fragments[3].text) <= 400
    assert [decisions[d.id].reason for d in directs[4:]] == ["reserved_for_other_roles"] * 2
    assert decisions[neighbour.id].status == "included"
    assert pack.total_chars <= BASE.total_chars

    alone = _pack(directs)  # without other roles direct support may use everything
    assert alone.total_chars == BASE.total_chars
    assert {d.reason for d in alone.decisions[4:]} == {"total_chars"}


def test_total_budget_truncates_to_a_useful_remainder_or_drops() -> None:
    fill = [_frag("parent_context", 2000 * i, _text(1400, 40 + i), priority=1.0) for i in range(3)]
    tail = _frag("parent_context", 9000, _text(1400, 50), priority=0.5)  # gets 5600-4200=1400
    last = _frag("background", 0, _text(300, 51), doc="d9")  # nothing left
    pack = _pack([*fill, tail, last])
    decisions = _by_id(pack)
    assert decisions[tail.id].status == "included"
    assert (decisions[last.id].status, decisions[last.id].reason) == (
        "fragment_dropped",
        "total_chars",
    )

    short = _frag("parent_context", 9000, _text(1400, 52), priority=0.5)
    roomy = Budget(profile="base", fragments=14, fragment_chars=1400, total_chars=5000)
    cut = _pack([*fill, short, last], roomy)
    assert (_by_id(cut)[short.id].status, _by_id(cut)[short.id].reason) == (
        "fragment_truncated",
        "total_chars",
    )
    assert cut.total_chars <= 5000
    assert _by_id(cut)[last.id].reason == "total_chars"  # 0 chars remain

    # 150 chars remain: too little to truncate into, but a later, smaller fragment still fits.
    small = _frag("background", 0, _text(100, 53), doc="d8")
    tight = Budget(profile="base", fragments=14, fragment_chars=1400, total_chars=4350)
    rest = _pack([*fill, short, small], tight)
    assert (_by_id(rest)[short.id].status, _by_id(rest)[short.id].reason) == (
        "fragment_dropped",
        "total_chars",
    )
    assert _by_id(rest)[small.id].status == "included"
    assert rest.total_chars == 4300


def test_middle_truncate_keeps_head_and_tail_within_limit() -> None:
    assert middle_truncate("short text", 10) == "short text"
    assert middle_truncate("abcdefghij" * 3, 11) == "abcd … ghij"
    rng = random.Random(7)
    for _ in range(300):
        text = _text(rng.randint(0, 600), rng.randint(0, 99))
        limit = rng.randint(0, 650)
        out = middle_truncate(text, limit)
        assert len(out) <= max(limit, 0)
        if len(text) <= limit:
            assert out == text
        elif limit >= 5:
            head, _, tail = out.partition(" … ")
            assert text.startswith(head) and text.endswith(tail)
            assert len(head) >= len(tail) * 0.85 and len(head) + len(tail) >= (limit - 3) * 0.9


def test_middle_truncate_moves_cuts_to_nearby_whitespace() -> None:
    text = "aaaaaaaaa bbbbbbbbbbbbbbbbbbbb ccccccccc"
    assert middle_truncate(text, 23) == "aaaaaaaaa … ccccccccc"
    assert middle_truncate("x" * 40, 23) == "x" * 10 + " … " + "x" * 10
