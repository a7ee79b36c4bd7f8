"""The head decision of a document write and the If-Match parser (ingest/versions.py)."""

from __future__ import annotations

import pytest

from ingest.versions import (
    HeadState,
    decide_write,
    decode_structure,
    encode_structure,
    parse_if_match,
)


def _head(**changes: object) -> HeadState:
    fields: dict[str, object] = {"version": 3, "status": "active", "content_hash": "c",
                                 "unit_hash": "u", "embedding_status": "ok",
                                 "has_version_node": True}  # fmt: skip
    return HeadState(**(fields | changes))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("head", "content", "unit", "expected"),
    [
        (_head(version=0, status="new", content_hash=None), "c", "u", ("added", 1)),
        (_head(), "c2", "u2", ("updated", 4)),
        (_head(status="withdrawn"), "c2", "u2", ("updated", 4)),  # new text brings it back
        (_head(status="withdrawn", unit_hash=None), "c", "u", ("restored", 3)),
        (_head(has_version_node=False), "c", "u", ("adopted", 3)),  # written before versions
        (_head(has_version_node=False), "c2", "u", ("updated", 4)),
        (_head(), "c", "u2", ("rewritten", 3)),  # same text, other derived rows
        (_head(embedding_status="disabled"), "c", "u", ("rewritten", 3)),
        (_head(), "c", "u", ("unchanged", 3)),
    ],
)
def test_the_write_follows_the_head(
    head: HeadState, content: str, unit: str, expected: tuple[str, int]
) -> None:
    assert decide_write(head, content, unit, "ok") == expected


@pytest.mark.parametrize(
    ("header", "version"),
    [(None, None), ('"3"', 3), (' "12" ', 12), ('W/"3"', -1), ("3", -1), ('"x"', -1),
     ('"1", "2"', -1), ('"' + "9" * 30 + '"', -1), ("*", -1)],
)  # fmt: skip
def test_if_match_is_one_strong_tag_of_ours(header: str | None, version: int | None) -> None:
    assert parse_if_match(header) == version


def test_structure_round_trips() -> None:
    headings = [{"id": "h_1", "text": "Pumice", "level": 1}]
    paragraphs = [{"id": "p_1", "text": "Pumice floats.", "startOffset": 10, "endOffset": 24}]
    blob = encode_structure(headings, paragraphs)
    assert decode_structure(blob) == {"headings": headings, "paragraphs": paragraphs}
