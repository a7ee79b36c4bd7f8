"""check_case: one probe case's expectations against one answer response (docs/architecture.md).

The response is the camelCase answer object of `POST /v1/query` and `kgs ask --json`. Each
expectation reads one fixed path; a path the response lacks is a failed expectation that names
the path, never a KeyError.

A paraphrase is held to less than its query (check_paraphrase): the same public status as the
query's own response, and the query's documents_include, but not the exact answer text, whose
sentence choice may fairly follow the wording.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from service.probes.cases import ExpectedBudget, ProbeCase

__all__ = [
    "check_case",
    "check_paraphrase",
    "format_result",
    "paraphrase_summary_line",
    "summary_line",
]

_REVIEW = ("trace", "ragSufficiencyReview")
_PACK = ("trace", "ragContextPack")
_GRAPH = ("trace", "graphContext")
# Probe key -> key of ragContextPack.budget.
_BUDGET_KEYS = (
    ("fragments", "fragments"),
    ("fragment_chars", "fragmentChars"),
    ("total_chars", "totalChars"),
)


class _ShapeError(Exception):
    """The response lacks a path an expectation reads, or holds the wrong type there."""


def _at(response: Mapping[str, Any], *keys: str) -> Any:
    node: Any = response
    for key in keys:
        if not isinstance(node, Mapping) or key not in node:
            raise _ShapeError(f"response has no {'.'.join(keys)}")
        node = node[key]
    return node


def _field_of_each(response: Mapping[str, Any], keys: tuple[str, ...], field: str) -> list[Any]:
    items = _at(response, *keys)
    where = ".".join(keys)
    if not isinstance(items, list | tuple):
        raise _ShapeError(f"response {where} is not a list")
    values = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or field not in item:
            raise _ShapeError(f"response has no {where}[{index}].{field}")
        values.append(item[field])
    return values


def _quoted(values: Iterable[Any]) -> str:
    return ", ".join(repr(value) for value in values) or "none"


def _includes(expected: tuple[str, ...], actual: list[Any], *, fold: bool = False) -> list[str]:
    def key(value: Any) -> Any:
        return value.casefold() if fold and isinstance(value, str) else value

    have = {key(value) for value in actual}
    missing = [value for value in expected if key(value) not in have]
    if not missing:
        return []
    return [f"missing {_quoted(missing)} (got {_quoted(sorted(set(map(str, actual))))})"]


def _excludes(expected: tuple[str, ...], actual: list[Any], *, fold: bool = False) -> list[str]:
    def key(value: Any) -> Any:
        return value.casefold() if fold and isinstance(value, str) else value

    have = {key(value) for value in actual}
    present = [value for value in expected if key(value) in have]
    return [f"present {_quoted(present)}"] if present else []


def _equals(expected: Any, actual: Any) -> list[str]:
    return [] if actual == expected else [f"expected {expected!r}, got {actual!r}"]


def _answer(response: Mapping[str, Any]) -> str:
    answer = _at(response, "answer")
    if not isinstance(answer, str):
        raise _ShapeError("response answer is not a string")
    return answer.casefold()


def _sufficiency(expected: str, response: Mapping[str, Any]) -> list[str]:
    return _equals(expected, _at(response, *_REVIEW, "status"))


def _degradation(expected: str, response: Mapping[str, Any]) -> list[str]:
    return _equals(expected, _at(response, *_REVIEW, "degradation"))


def _abstain(expected: bool, response: Mapping[str, Any]) -> list[str]:
    status = _at(response, "status")
    if (status == "abstained") == expected:
        return []
    wanted = "an abstention" if expected else "no abstention"
    return [f"expected {wanted}, got status {status!r}"]


def _answer_includes(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    answer = _answer(response)
    missing = [text for text in expected if text.casefold() not in answer]
    return [f"answer lacks {_quoted(missing)}"] if missing else []


def _answer_excludes(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    answer = _answer(response)
    present = [text for text in expected if text.casefold() in answer]
    return [f"answer contains {_quoted(present)}"] if present else []


def _roles(response: Mapping[str, Any]) -> list[Any]:
    return _field_of_each(response, (*_PACK, "fragments"), "role")


def _roles_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _includes(expected, _roles(response))


def _roles_exclude(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _excludes(expected, _roles(response))


def _decisions_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _includes(expected, _field_of_each(response, (*_PACK, "sourceDecisions"), "status"))


def _source_boundary(expected: str, response: Mapping[str, Any]) -> list[str]:
    return _equals(expected, _at(response, *_PACK, "sourceBoundary"))


def _failure_stages_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    stages = _field_of_each(response, ("trace", "ragFailureClassifications"), "stage")
    return _includes(expected, stages)


def _titles(response: Mapping[str, Any], window: str) -> list[Any]:
    return _field_of_each(response, (*_GRAPH, window), "title")


def _predecessors_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _includes(expected, _titles(response, "predecessors"), fold=True)


def _successors_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _includes(expected, _titles(response, "successors"), fold=True)


def _successors_exclude(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _excludes(expected, _titles(response, "successors"), fold=True)


def _relation_kinds_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    kinds = [
        *_field_of_each(response, (*_GRAPH, "predecessors"), "relation"),
        *_field_of_each(response, (*_GRAPH, "successors"), "relation"),
    ]
    return _includes(expected, kinds)


def _documents_include(expected: tuple[str, ...], response: Mapping[str, Any]) -> list[str]:
    return _includes(expected, _field_of_each(response, ("citations",), "path"))


def _budget(expected: ExpectedBudget, response: Mapping[str, Any]) -> list[str]:
    failures = []
    for name, json_key in _BUDGET_KEYS:
        wanted = getattr(expected, name)
        actual = _at(response, *_PACK, "budget", json_key)
        if isinstance(actual, bool) or actual != wanted:
            failures.append(f"{name} expected {wanted!r}, got {actual!r}")
    return failures


def _recovery_attempted(expected: bool, response: Mapping[str, Any]) -> list[str]:
    actual = _at(response, "trace", "ragRecovery", "attempted")
    return [] if actual is expected else [f"expected {expected!r}, got {actual!r}"]


# One check per Expect field; the unit tests assert that the two stay in step.
_CHECKS: dict[str, Callable[[Any, Mapping[str, Any]], list[str]]] = {
    "sufficiency": _sufficiency,
    "degradation": _degradation,
    "abstain": _abstain,
    "answer_includes": _answer_includes,
    "answer_excludes": _answer_excludes,
    "roles_include": _roles_include,
    "roles_exclude": _roles_exclude,
    "decisions_include": _decisions_include,
    "source_boundary": _source_boundary,
    "failure_stages_include": _failure_stages_include,
    "predecessors_include": _predecessors_include,
    "successors_include": _successors_include,
    "successors_exclude": _successors_exclude,
    "relation_kinds_include": _relation_kinds_include,
    "documents_include": _documents_include,
    "budget": _budget,
    "recovery_attempted": _recovery_attempted,
}


def check_case(case: ProbeCase, response: Mapping[str, Any]) -> list[str]:
    """The case's failed expectations as readable strings, in file order; empty = passed."""
    failures: list[str] = []
    for name, expected in msgspec.structs.asdict(case.expect).items():
        if expected is msgspec.UNSET:
            continue
        try:
            failures.extend(f"{name}: {message}" for message in _CHECKS[name](expected, response))
        except _ShapeError as err:
            failures.append(f"{name}: {err}")
    return failures


def _paraphrase_status(case: ProbeCase, query_status: Any, got: Any) -> list[str]:
    """The query's status is the reference, unless the query itself breaks the case's `abstain`:
    then a paraphrase is held to the case, so that one that abstains correctly is not blamed for
    disagreeing with a wrong query."""
    abstain = case.expect.abstain
    if abstain is True and query_status != "abstained":
        if got == "abstained":
            return []
        return [f"status expected 'abstained' (the case's; the query got {query_status!r}), "
                f"got {got!r}"]  # fmt: skip
    if abstain is False and query_status == "abstained":
        if got != "abstained":
            return []
        return ["status expected no abstention (the case's; the query got 'abstained' too), "
                f"got {got!r}"]  # fmt: skip
    if _answer_class(got) == _answer_class(query_status):
        return []
    return [f"status expected {query_status!r} (the query's), got {got!r}"]


def _answer_class(status: Any) -> Any:
    """partial and answered release the same kind of answer (partial adds a caveat: a missing
    term, or the answerability band under the confident threshold); abstained, conflict and
    stale each say something else."""
    return "answered" if status == "partial" else status


def check_paraphrase(
    case: ProbeCase, paraphrase: str, query_response: Mapping[str, Any], response: Mapping[str, Any]
) -> list[str]:
    """One paraphrase's failures, each naming the paraphrase; empty = it behaved like the query.

    Whether the query's own status is right is the case's check (check_case); a paraphrase is
    judged on agreeing with it (_paraphrase_status).
    """
    label = f"paraphrase {paraphrase!r}"
    failures: list[str] = []
    try:
        got = _at(response, "status")
        failures.extend(
            f"{label}: {message}"
            for message in _paraphrase_status(case, _at(query_response, "status"), got)
        )
    except _ShapeError as err:
        failures.append(f"{label}: status: {err}")
        got = None
    documents = case.expect.documents_include
    # An abstention cites nothing; its status line already says what went wrong.
    if not isinstance(documents, msgspec.UnsetType) and got != "abstained":
        try:
            failures.extend(
                f"{label}: documents_include: {message}"
                for message in _documents_include(documents, response)
            )
        except _ShapeError as err:
            failures.append(f"{label}: documents_include: {err}")
    return failures


def format_result(case_id: str, failures: list[str], known_gap: str | None = None) -> str:
    """One line per case: `PASS id`, `FAIL id: reason; reason`, or for a case with a known gap
    `GAP id (gap): reason; ...` (and `PASS id (known gap closed: ...)` once it passes)."""
    if not failures:
        return f"PASS {case_id}" + (f" (known gap closed: {known_gap})" if known_gap else "")
    reasons = "; ".join(" ".join(failure.splitlines()) for failure in failures)
    return f"GAP {case_id} ({known_gap}): {reasons}" if known_gap else f"FAIL {case_id}: {reasons}"


def summary_line(passed: int, failed: int, gaps: int = 0) -> str:
    return f"{passed} passed, {failed} failed" + (f", {gaps} known gaps" if gaps else "")


def paraphrase_summary_line(passed: int, failed: int) -> str:
    """Paraphrase counts, printed before summary_line (which counts cases)."""
    return f"paraphrases: {passed} passed, {failed} failed"
