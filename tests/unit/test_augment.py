from typing import Any

from service.pipeline.augment import _direct, _fragment, _window, _within_span, fragment_id
from service.pipeline.retrieval import Hit


def _row(ordinal: int, heading: tuple[str, ...], kind: str = "paragraph") -> dict[str, Any]:
    return {
        "paragraphId": f"p{ordinal}", "documentId": "d", "path": "s/doc.md", "kind": kind,
        "text": f"text {ordinal}", "ordinal": ordinal, "headingPath": list(heading),
        "startOffset": ordinal * 10, "endOffset": ordinal * 10 + 6,
        "startLine": ordinal + 1, "endLine": ordinal + 1,
    }  # fmt: skip


def _hit(ordinal: int, heading: tuple[str, ...], kind: str = "paragraph") -> Hit:
    text = "First sentence.\nSecond sentence here."
    return Hit(
        paragraph_id=f"p{ordinal}", document_id="d", path="s/doc.md", title="Doc", kind=kind,
        text=text, ordinal=ordinal, heading_path=heading, start_offset=100,
        end_offset=100 + len(text), start_line=7, end_line=8, knowledge_point_ids=("doc",),
        score=0.5, ranks={"fulltext": 1}, span_start=116, span_end=100 + len(text),
        span_text="Second sentence here.", citation_id="c_1",
    )  # fmt: skip


def test_direct_support_keeps_the_span_offsets_and_line() -> None:
    fragment = _direct(_hit(3, ("Doc", "A")))
    assert (fragment.start_offset, fragment.end_offset) == (116, 137)
    assert (fragment.start_line, fragment.end_line) == (8, 8)
    assert fragment.role == "direct_support" and fragment.citation_ids == ("c_1",)
    assert fragment.id == fragment_id("direct_support", "d", 116, 137)


def test_window_stays_inside_the_section_and_skips_taken_and_code() -> None:
    rows = [_row(i, ("Doc", "A") if i < 8 else ("Doc", "B")) for i in range(12)]
    rows[4]["kind"] = "code"
    window = _window(rows, _hit(5, ("Doc", "A")), radius=5, taken={"p5", "p6"}, structured_radius=2)
    assert [r["ordinal"] for r in window] == [0, 1, 2, 3, 7]


def test_window_is_narrow_inside_tables() -> None:
    rows = [_row(i, ("Doc", "A")) for i in range(12)]
    window = _window(
        rows, _hit(5, ("Doc", "A"), kind="table"), radius=5, taken={"p5"}, structured_radius=2
    )
    assert [r["ordinal"] for r in window] == [3, 4, 6, 7]


def test_a_procedure_within_its_paragraphs_is_cut_to_its_span() -> None:
    """One task of running text ("To unlink contacts: ...") quotes its own sentences only:
    the fragment's text, offsets and lines are those of the span."""
    rows = [_row(0, ("Doc", "A")), _row(1, ("Doc", "A"))]
    rows[1]["text"] = "Tap Link.\nTo unlink: tap Unlink.\nTap Done."
    rows[1]["endOffset"] = int(rows[1]["startOffset"]) + len(rows[1]["text"])
    lo = int(rows[1]["startOffset"]) + rows[1]["text"].index("To unlink")
    hi = int(rows[1]["startOffset"]) + rows[1]["text"].index("\nTap Done")
    whole = _fragment("direct_support", rows, "section", 1.0, None)
    cut = _within_span(whole, rows, (lo, hi))
    assert cut.text == "To unlink: tap Unlink."
    assert (cut.start_offset, cut.end_offset) == (lo, hi)
    assert (cut.start_line, cut.end_line) == (int(rows[1]["startLine"]) + 1,) * 2
    assert cut.id == fragment_id("direct_support", "d", lo, hi) != whole.id


def test_a_span_across_paragraphs_keeps_each_paragraph_s_part() -> None:
    rows = [_row(0, ("Doc", "A")), _row(1, ("Doc", "A")), _row(2, ("Doc", "A"))]
    whole = _fragment("direct_support", rows, "section", 1.0, None)
    cut = _within_span(whole, rows, (rows[0]["startOffset"] + 2, rows[1]["startOffset"] + 4))
    assert cut.text == "xt 0\n\ntext"
    assert (cut.start_line, cut.end_line) == (1, 2)
