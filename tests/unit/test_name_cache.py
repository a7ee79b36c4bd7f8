"""The cached names of a scope give match_names every knowledge point it would keep from the
whole scope, so a question finds the same names with or without the name search; the names held
stay within their byte budget."""

from service.pipeline.name_cache import ScopeNames, admit, scope_names
from service.pipeline.names import match_names, name_query
from tests.unit.test_retrieval_pure import KPS as SHARED_KPS

KPS = [
    *SHARED_KPS,  # water glass, plastic cup, glass
    {"id": "box", "title": "Box", "aliases": ["crate"], "documentId": None, "path": None},
    {"id": "ear", "title": "Ear", "aliases": [], "documentId": "d4", "path": "w/ear.md"},
]  # fmt: skip
QUESTIONS = [
    "what is waterglass?", "what is water glass?", "WATER-GLASS", "水玻璃是什么",
    "compare water glasses and plastic cups", "where are the boxes?", "how are crates made",
    "glass", "what is a tumbler?", "", "where are ears?",
]  # fmt: skip


def test_cached_candidates_keep_every_name_match_names_keeps() -> None:
    names = scope_names(7, [[k["id"], k["title"], k["aliases"], k["documentId"], k["path"]]
                            for k in KPS])  # fmt: skip
    assert names.seq == 7
    for question in QUESTIONS:
        assert match_names(question, (), names.candidates(question)) == match_names(
            question, (), KPS
        ), question
    assert [m.id for m in match_names("where are the boxes?", (), KPS)] == ["box"]
    assert not names.candidates("what is a tumbler?")


def test_the_name_search_asks_for_singular_forms_too() -> None:
    query = name_query("s", "where are the boxes?")
    assert " box " in f" {query.split('+(')[1].rstrip(')')} "
    assert "boxe" in query and "boxes" in query


def _names(count: int) -> ScopeNames:
    return scope_names(1, [[f"kp{i}", f"Point {i}", [f"alias {i}"], "d1", "s/p.md"]
                           for i in range(count)])  # fmt: skip


def test_the_names_held_stay_within_their_budget_the_oldest_read_going_first() -> None:
    small, large = _names(10), _names(40)
    assert 0 < small.bytes < large.bytes
    budget = 3 * small.bytes
    held: dict[tuple[str | None, str], ScopeNames] = {}
    admit(held, (None, "a"), small, budget)
    admit(held, (None, "b"), _names(10), budget)
    assert list(held) == [(None, "a"), (None, "b")]
    admit(held, (None, "c"), large, budget)  # larger than the budget alone: not held
    assert list(held) == [(None, "a"), (None, "b")]
    admit(held, (None, "d"), _names(15), budget)  # "a", read first, makes room
    assert list(held) == [(None, "b"), (None, "d")]
    assert sum(e.bytes for e in held.values()) <= budget
