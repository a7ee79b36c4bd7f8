"""The draft an escalation proposes, built from an answer (service/escalations/draft.py)."""

from __future__ import annotations

from typing import Any

import msgspec

from service.escalations import content_hash, draft_content, escalation_offer

SOURCE = "Basalt is volcanic. It cools fast. Granite cools slowly. Basalt melts at 1200 °C."


def _span(start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {"documentId": "d_1", "path": "rocks/basalt.md", "headingPath": ["Basalt"],
            "startOffset": start, "endOffset": end, **extra}  # fmt: skip


def _response() -> dict[str, Any]:
    cited = SOURCE.index("It cools")
    melts = SOURCE.index("Basalt melts")
    return {
        "status": "conflict",
        "citations": [_span(cited, cited + 14, quote=SOURCE[cited : cited + 14])],
        "trace": {
            "traceId": "t_0123456789abcdef",
            "ragSufficiencyReview": {
                "missingTerms": ["melting"],
                "gates": [
                    {"name": "conflict", "passed": False, "detail": "two values disagree"},
                    {"name": "budget_compliance", "passed": True, "detail": "fine"},
                ],
            },
            "ragContextPack": {
                "fragments": [
                    # the whole first two sentences: holds the citation
                    {**_span(0, cited + 14, text=SOURCE[: cited + 14]), "role": "direct_support"},
                    # cut by the budget: its text is no exact slice, never quoted
                    {**_span(0, len(SOURCE), text="Basalt is … 1200 °C."), "role": "parent",
                     "truncated": True},
                    {**_span(melts, len(SOURCE), text=SOURCE[melts:]), "role": "conflict",
                     "conflictValues": ["1200 °C", "1100 °C"]},
                ]
            },
            "retrieval": {"hits": [{"documentId": "d_1", "path": "rocks/basalt.md",
                                    "headingPath": ["Basalt"],
                                    "span": {"startOffset": 20, "endOffset": 34,
                                             "text": SOURCE[20:34]}}]},
        },
    }  # fmt: skip


def test_draft_quotes_only_exact_slices_without_repeats() -> None:
    draft = draft_content(_response(), query="When does basalt melt?", scope="rocks",
                          note=None, evidence_items=5, conflict_items=5)  # fmt: skip
    assert draft.answer_id == "t_0123456789abcdef" and draft.answer_status == "conflict"
    assert draft.missing_terms == ["melting"] and draft.reasons == ["two values disagree"]
    for quote in (*draft.evidence, *draft.conflicts):
        assert SOURCE[quote.start_offset : quote.end_offset] == quote.quote
    # The citation first; its fragment is kept (it is wider); the hit inside it is not.
    assert [e.source for e in draft.evidence] == ["citation", "fragment"]
    assert draft.conflicts[0].values == ["1200 °C", "1100 °C"]
    one = draft_content(_response(), query="q", scope="rocks", note=None, evidence_items=1,
                        conflict_items=0)  # fmt: skip
    assert len(one.evidence) == 1 and one.conflicts == []


def test_content_hash_ignores_member_order_and_sees_any_change() -> None:
    draft = msgspec.to_builtins(draft_content(_response(), query="q", scope="rocks", note="n",
                                              evidence_items=5, conflict_items=5))  # fmt: skip
    reordered = dict(reversed(list(draft.items())))
    assert content_hash(reordered) == content_hash(draft)
    changed = {**draft, "evidence": [{**draft["evidence"][0], "quote": "Basalt is harmless."}]}
    assert content_hash(changed) != content_hash(draft)
    assert content_hash({**draft, "note": None}) != content_hash(draft)


def test_only_gaps_offer_an_escalation() -> None:
    assert escalation_offer("answered") is None
    for status in ("abstained", "partial", "conflict", "stale"):
        assert escalation_offer(status) == {"reason": status, "preview": "/v1/escalations/preview"}
