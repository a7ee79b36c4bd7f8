"""The scope choice of a question without a scope: the pre-ranking, the final ranking, the
full-text pre-ranking's Lucene query and the two settings."""

import pytest

from service.question.scope_choice import (
    LUCENE_SCOPE_KEY_CLAUSES,
    ScopeScore,
    fulltext_pre_rank_query,
    pre_rank,
    rank_scopes,
)
from service.scope import scope_key
from service.settings import Settings, SettingsError


def _score(scope: str, cosine: float | None, coverage: float = 0.0, hits: int = 1) -> ScopeScore:
    return ScopeScore(scope=scope, best_cosine=cosine, term_coverage=coverage, hits=hits)


def test_the_highest_cosine_wins_whatever_the_term_coverage() -> None:
    ranked = rank_scopes([_score("a", 0.41, 1.0), _score("b", 0.73, 0.0), _score("c", None, 1.0)])
    assert [s.scope for s in ranked] == ["b", "a", "c"]


def test_without_cosines_coverage_then_hits_then_name_decide() -> None:
    ranked = rank_scopes([_score("d", None, 0.5, 8), _score("c", None, 0.5, 8),
                          _score("b", None, 0.5, 9), _score("a", None, 0.0, 9)])  # fmt: skip
    assert [s.scope for s in ranked] == ["b", "c", "d", "a"]


def test_pre_ranking_cosine_first_then_full_text_then_name() -> None:
    ranked = pre_rank(
        ["e", "d", "c", "b", "a", "f"],
        cosines={"c": 0.61, "d": 0.83},
        fulltext={"a": 2.5, "b": 7.0, "c": 9.9},
    )
    assert [r.scope for r in ranked] == ["d", "c", "b", "a", "e", "f"]
    assert ranked[1].best_cosine == 0.61 and ranked[1].best_fulltext == 9.9
    assert ranked[4].best_cosine is None and ranked[4].best_fulltext is None


def test_pre_ranking_lists_exactly_the_scopes_given() -> None:
    """A score of a scope not passed (not readable) is never listed; duplicates count once."""
    ranked = pre_rank(["a", "b", "a"], cosines={"a": 0.5, "other": 0.99}, fulltext={"x": 3.0})
    assert [r.scope for r in ranked] == ["a", "b"]


def test_full_text_pre_ranking_requires_one_of_the_scopes_keys() -> None:
    query = fulltext_pre_rank_query(["alpha", "beta"], ["prism", "alignment", "prism", " "])
    assert query == (f"+scopeKey:({scope_key('alpha')} {scope_key('beta')}) "
                     "+(prism alignment)")  # fmt: skip


def test_full_text_pre_ranking_escapes_the_question() -> None:
    query = fulltext_pre_rank_query(["alpha"], ["c++", "AND", 'say"'])
    assert query is not None and query.endswith(r"+(c\+\+ and say\")")


def test_full_text_pre_ranking_keys_stay_under_the_clause_limit() -> None:
    """Lucene refuses more than 1024 clauses: beyond the bound the statement's scope filter
    alone keeps the readable scopes."""
    terms = ["prism", "alignment"]
    fits = [f"s{i}" for i in range(LUCENE_SCOPE_KEY_CLAUSES - len(terms))]
    query = fulltext_pre_rank_query(fits, terms)
    assert query is not None and all(scope_key(s) in query for s in fits)
    too_many = [*fits, "one-more"]
    assert fulltext_pre_rank_query(too_many, terms) == "+(prism alignment)"


def test_full_text_pre_ranking_needs_a_term_and_a_scope() -> None:
    assert fulltext_pre_rank_query(["alpha"], []) is None
    assert fulltext_pre_rank_query(["alpha"], ["  "]) is None
    assert fulltext_pre_rank_query([], ["prism"]) is None


def test_the_scope_settings_have_defaults_and_environment_variables() -> None:
    api = Settings.from_env({}).api
    assert (api.max_question_scopes, api.question_scope_candidates) == (1000, 3)
    env = {"KGS_API_MAX_QUESTION_SCOPES": "30", "KGS_API_QUESTION_SCOPE_CANDIDATES": "5"}
    api = Settings.from_env(env).api
    assert (api.max_question_scopes, api.question_scope_candidates) == (30, 5)
    with pytest.raises(SettingsError, match="KGS_API_QUESTION_SCOPE_CANDIDATES"):
        Settings.from_env({"KGS_API_QUESTION_SCOPE_CANDIDATES": "0"})
