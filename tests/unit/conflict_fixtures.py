"""Documents for the conflict tests: one Passage per paragraph, offsets as a file holds them."""

from __future__ import annotations

from service.pipeline.conflicts import scan_conflicts
from service.text.facts import Passage

FILLER = "Editorial notes follow the house style and carry no figures at all."


def document(path: str, *paragraphs: str, kind: str = "paragraph") -> list[Passage]:
    passages = []
    offset = 0
    for index, text in enumerate(paragraphs):
        passages.append(
            Passage(
                document_id=f"d:{path}", path=path, paragraph_id=f"{path}#{index}", text=text,
                start_offset=offset, start_line=1 + 2 * index, kind=kind,
            )
        )  # fmt: skip
        offset += len(text) + 2
    return passages


def values(passages: list[Passage]) -> list[tuple[str, ...]]:
    return [c.values for c in scan_conflicts(passages).conflicts]


CATHEDRAL = (
    "The cathedral is the seat of the Bishop of the Diocese of Kalamazoo. The parish was founded "
    "in {year}, the present cathedral was built in 1951 and consecrated by Bishop Francis Haas."
)


CENSUS = (
    "As of the census of 2000, there were {people} people, {households} households, and "
    "{families} families residing in the township."
)


SCHOOL = (
    "Set in the north of the borough and founded in 1954, the {kind} takes its name from "
    "Mother St. John Fontbonne, who "
    "re-established the congregation after the revolution. Its students come from across the "
    "borough and most of them continue to four-year colleges after graduation."
)
