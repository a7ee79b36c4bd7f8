"""Where a converted document's blocks came from: pages, where later pages begin inside a
block, anchors (ingest/origin.py), and the page of a sentence a citation names."""

from __future__ import annotations

from ingest.convert.base import Converted, Location
from ingest.origin import Origin, block_location, origin_of
from service.answer.sentences import sentence_page
from service.question.trace import place

TEXT = "# Manual\n\nFirst page text. Goes on\n\nto the next page.\n\nThird block.\n"


def _origin(*locations: Location) -> Origin:
    converted = Converted(text=TEXT, media_type="application/pdf", locations=locations, pages=3)
    return origin_of(converted, b"%PDF-1.7 original bytes")


def test_a_block_over_a_page_break_records_where_the_next_page_begins() -> None:
    start = TEXT.index("First")
    end = TEXT.index("Third") - 2
    origin = _origin(
        Location(start=0, end=8, page_first=1, page_last=1, anchor=None),
        Location(
            start=start,
            end=TEXT.index("to the"),
            page_first=1,
            page_last=1,
            bbox=(10.0, 20.0, 300.0, 40.0),
        ),
        Location(start=TEXT.index("to the"), end=end, page_first=2, page_last=2),
        Location(start=TEXT.index("Third"), end=len(TEXT) - 1, page_first=3, page_last=3),
    )
    placed = block_location(origin, start, end)
    assert placed["pageFirst"] == 1
    assert placed["pageLast"] == 2
    assert placed["bbox"] == [10.0, 20.0, 300.0, 40.0]
    offset = TEXT.index("to the") - start
    assert placed["pageStarts"] == [offset]
    assert sentence_page(1, placed["pageStarts"], 0) == 1
    assert sentence_page(1, placed["pageStarts"], offset) == 2
    third = block_location(origin, TEXT.index("Third"), len(TEXT) - 1)
    assert (third["pageFirst"], third["pageLast"], third["pageStarts"]) == (3, 3, None)


def test_an_html_block_takes_the_nearest_anchor_at_or_before_it() -> None:
    origin = _origin(
        Location(start=0, end=8, anchor="manual"),
        Location(start=10, end=34),
        Location(start=TEXT.index("Third"), end=len(TEXT) - 1, anchor="third"),
    )
    assert block_location(origin, 10, 34)["anchor"] == "manual"
    third = block_location(origin, TEXT.index("Third"), len(TEXT) - 1)
    assert third["anchor"] == "third"
    assert third["pageFirst"] is None


def test_the_original_is_identified_by_its_hash_and_size() -> None:
    origin = _origin()
    assert origin.size == len(b"%PDF-1.7 original bytes")
    assert len(origin.hash) == 64


def test_a_citation_names_the_page_the_anchor_or_the_line() -> None:
    assert place("docs/manual.pdf", 40, 12, None) == "manual.pdf, page 12"
    assert place("help/faq.html", 3, None, "reset") == "faq.html#reset"
    assert place("notes/guide.md", 14, None, None) == "guide.md, line 14"
