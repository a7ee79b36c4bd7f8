"""The scope choice of a question without a scope: the ranking and its limit's setting."""

from service.pipeline.scope_choice import ScopeScore, rank_scopes
from service.settings import Settings


def _score(scope: str, cosine: float | None, coverage: float = 0.0, hits: int = 1) -> ScopeScore:
    return ScopeScore(scope=scope, best_cosine=cosine, term_coverage=coverage, hits=hits)


def test_the_highest_cosine_wins_whatever_the_term_coverage() -> None:
    ranked = rank_scopes([_score("a", 0.41, 1.0), _score("b", 0.73, 0.0), _score("c", None, 1.0)])
    assert [s.scope for s in ranked] == ["b", "a", "c"]


def test_without_cosines_coverage_then_hits_then_name_decide() -> None:
    ranked = rank_scopes([_score("d", None, 0.5, 8), _score("c", None, 0.5, 8),
                          _score("b", None, 0.5, 9), _score("a", None, 0.0, 9)])  # fmt: skip
    assert [s.scope for s in ranked] == ["b", "c", "d", "a"]


def test_the_scope_limit_has_a_default_and_an_environment_variable() -> None:
    assert Settings.from_env({}).api.max_question_scopes == 8
    env = {"KGS_API_MAX_QUESTION_SCOPES": "3"}
    assert Settings.from_env(env).api.max_question_scopes == 3
