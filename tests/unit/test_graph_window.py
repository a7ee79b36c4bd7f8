from typing import Any

from service.pipeline.graph_context import rank_neighbour_window


def _row(id: str, relation: str, direction: str, confidence: float, *, title: str | None = None,
         provenance: str = "front_matter", document: bool = True, aliases: list[str] | None = None
         ) -> dict[str, Any]:  # fmt: skip
    return {
        "id": id, "title": title or id.replace("-", " ").title(), "aliases": aliases or [],
        "relation": relation, "direction": direction, "confidence": confidence,
        "provenance": provenance, "documentId": f"d_{id}" if document else None, "path": None,
    }  # fmt: skip


ANCHOR = {"anchor_id": "glass", "anchor_names": ["Glass", "glass vessel"], "window": 3,
          "min_confidence": 0.5}  # fmt: skip


def test_compare_prefers_contrast_and_analogy_over_a_more_confident_procedure() -> None:
    rows = [
        _row("rinsing", "PRECEDES", "out", 0.97),
        _row("polymer-cup", "CONTRASTS_WITH", "out", 0.8),
        _row("ceramic-mug", "ANALOGOUS_TO", "out", 0.7),
        _row("annealing", "PRECEDES", "in", 0.9),
    ]
    pred, succ, diag = rank_neighbour_window(rows, intent="compare", **ANCHOR)
    assert [n.id for n in succ] == ["polymer-cup", "ceramic-mug"]
    assert [n.id for n in pred] == ["annealing"]  # no aligned predecessor: structural fail-open
    assert diag.aligned_candidates == 2 and diag.misaligned_candidates == 2
    assert not diag.fail_open
    assert any(e.id == "rinsing" and "misaligned" in e.reason for e in diag.excluded)


def test_how_to_prefers_procedure() -> None:
    rows = [
        _row("polymer-cup", "CONTRASTS_WITH", "out", 0.95),
        _row("rinsing", "PRECEDES", "out", 0.6),
    ]
    _, succ, _ = rank_neighbour_window(rows, intent="how_to", **ANCHOR)
    assert [n.id for n in succ] == ["rinsing"]


def test_exclusions_bibliography_self_equivalent_and_low_confidence() -> None:
    rows = [
        _row("refs", "CITES", "out", 0.9),
        _row("glass", "IS_A", "out", 0.9),
        _row("glass-2", "IS_A", "out", 0.9, title="Glass vessel"),
        _row("weak", "IS_A", "out", 0.3),
        _row("material", "IS_A", "out", 0.8),
    ]
    _, succ, diag = rank_neighbour_window(rows, intent="definition", **ANCHOR)
    assert [n.id for n in succ] == ["material"]
    reasons = {e.id: e.reason for e in diag.excluded}
    assert "bibliography" in reasons["refs"]
    assert reasons["glass"] == "self-neighbour"
    assert "anchor-equivalent" in reasons["glass-2"]
    assert "below" in reasons["weak"]


def test_fail_open_when_nothing_is_aligned() -> None:
    rows = [_row("a", "REFERENCES", "out", 0.5), _row("b", "PRECEDES", "out", 0.9)]
    _, succ, diag = rank_neighbour_window(rows, intent="causal", **ANCHOR)
    assert [n.id for n in succ] == ["b", "a"]
    assert diag.fail_open and diag.aligned_candidates == 0


def test_window_size_and_tie_break_by_provenance_and_evidence() -> None:
    rows = [
        _row(f"n{i}", "CONTRASTS_WITH", "out", 0.8, provenance="link" if i % 2 else "front_matter",
             document=i != 0)
        for i in range(6)
    ]  # fmt: skip
    _, succ, _ = rank_neighbour_window(rows, intent="compare", **{**ANCHOR, "window": 5})
    assert len(succ) == 5
    assert succ[0].provenance == "front_matter" and succ[0].document_id is not None
    assert "n0" not in [n.id for n in succ[:2]]  # no source document ranks lower


def test_operand_is_promoted() -> None:
    rows = [_row("x", "CONTRASTS_WITH", "out", 0.9), _row("cup", "ANALOGOUS_TO", "out", 0.6)]
    _, succ, _ = rank_neighbour_window(rows, intent="compare", operand_ids=["cup"], **ANCHOR)
    assert succ[0].id == "cup"


def test_the_same_neighbour_once_per_direction() -> None:
    rows = [_row("x", "CONTRASTS_WITH", "out", 0.6, provenance="link"),
            _row("x", "CONTRASTS_WITH", "out", 0.9)]  # fmt: skip
    _, succ, _ = rank_neighbour_window(rows, intent="compare", **ANCHOR)
    assert len(succ) == 1 and succ[0].confidence == 0.9
