"""Probe case files (`kgs probe`): strict loading and the checks against answer responses."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from service.probes import (
    ProbeCase,
    ProbeFileError,
    check_case,
    check_paraphrase,
    format_result,
    load_cases,
    paraphrase_summary_line,
    summary_line,
)
from service.probes.cases import MIN_PARAPHRASES, Expect, wording_key

PROBES = Path(__file__).resolve().parents[1] / "probes"

# A response that satisfies every expectation in PASSING.
GOOD: dict[str, Any] = {
    "answer": "Water glass is Sodium Silicate dissolved in water.",
    "status": "answered",
    "citations": [{"path": "waterglass/waterglass.md", "documentId": "d1"}],
    "trace": {
        "ragSufficiencyReview": {"status": "sufficient", "degradation": "none"},
        "ragContextPack": {
            "fragments": [{"role": "direct_support"}, {"role": "graph_neighbor_support"}],
            "sourceDecisions": [{"status": "included"}, {"status": "fragment_truncated"}],
            "sourceBoundary": "full_document",
            "budget": {"fragments": 14, "fragmentChars": 1400, "totalChars": 5600},
        },
        "ragFailureClassifications": [{"stage": "context_assembly"}],
        "graphContext": {
            "predecessors": [{"title": "Sodium carbonate", "relation": "PRECEDES"}],
            "successors": [{"title": "Silica gel", "relation": "ANALOGOUS_TO"}],
        },
        "ragRecovery": {"attempted": False},
    },
}

# One expectation per key that GOOD satisfies (titles and answer text in other letter cases).
PASSING: dict[str, Any] = {
    "sufficiency": "sufficient",
    "degradation": "none",
    "abstain": False,
    "answer_includes": ["SODIUM silicate", "water"],
    "answer_excludes": ["all reasoning"],
    "roles_include": ["direct_support", "graph_neighbor_support"],
    "roles_exclude": ["conflict"],
    "decisions_include": ["fragment_truncated"],
    "source_boundary": "full_document",
    "failure_stages_include": ["context_assembly"],
    "predecessors_include": ["sodium carbonate"],
    "successors_include": ["SILICA GEL"],
    "successors_exclude": ["Cup washing procedure"],
    "relation_kinds_include": ["PRECEDES", "ANALOGOUS_TO"],
    "documents_include": ["waterglass/waterglass.md"],
    "budget": {"fragments": 14, "fragment_chars": 1400, "total_chars": 5600},
    "recovery_attempted": False,
}

# key -> the response path it reads first, as named by the "missing" failure.
PATHS = {
    "sufficiency": "trace.ragSufficiencyReview.status",
    "degradation": "trace.ragSufficiencyReview.degradation",
    "abstain": "status",
    "answer_includes": "answer",
    "answer_excludes": "answer",
    "roles_include": "trace.ragContextPack.fragments",
    "roles_exclude": "trace.ragContextPack.fragments",
    "decisions_include": "trace.ragContextPack.sourceDecisions",
    "source_boundary": "trace.ragContextPack.sourceBoundary",
    "failure_stages_include": "trace.ragFailureClassifications",
    "predecessors_include": "trace.graphContext.predecessors",
    "successors_include": "trace.graphContext.successors",
    "successors_exclude": "trace.graphContext.successors",
    "relation_kinds_include": "trace.graphContext.predecessors",
    "documents_include": "citations",
    "budget": "trace.ragContextPack.budget.fragments",
    "recovery_attempted": "trace.ragRecovery.attempted",
}


def make_case(**expect: Any) -> ProbeCase:
    raw = {"id": "case_1", "query": "what is water glass?", "scope": "waterglass"}
    return msgspec.convert({**raw, "expect": expect}, ProbeCase, strict=True)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --- checks -----------------------------------------------------------------------------------


def test_every_expect_key_has_a_passing_example_and_a_path() -> None:
    fields = {field.name for field in msgspec.structs.fields(Expect)}
    assert set(PASSING) == fields
    assert set(PATHS) == fields


def test_all_expectations_pass_together() -> None:
    assert check_case(make_case(**PASSING), GOOD) == []


def test_no_expectations_pass_anything() -> None:
    assert check_case(make_case(), {}) == []


@pytest.mark.parametrize("key", sorted(PASSING))
def test_each_key_passes(key: str) -> None:
    assert check_case(make_case(**{key: PASSING[key]}), GOOD) == []


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("sufficiency", "borderline", "expected 'borderline', got 'sufficient'"),
        ("degradation", "conflict", "expected 'conflict', got 'none'"),
        ("abstain", True, "expected an abstention, got status 'answered'"),
        ("answer_includes", ["sodium silicate", "Potassium"], "answer lacks 'Potassium'"),
        ("answer_excludes", ["all reasoning", "DISSOLVED"], "answer contains 'DISSOLVED'"),
        ("roles_include", ["direct_support", "conflict"], "missing 'conflict'"),
        ("roles_exclude", ["graph_neighbor_support"], "present 'graph_neighbor_support'"),
        ("decisions_include", ["fragment_dropped"], "missing 'fragment_dropped'"),
        ("source_boundary", "window", "expected 'window', got 'full_document'"),
        ("failure_stages_include", ["graph_evidence"], "missing 'graph_evidence'"),
        # Silica gel is a successor, not a predecessor, and the other way round.
        ("predecessors_include", ["Silica gel"], "missing 'Silica gel'"),
        ("successors_include", ["Sodium carbonate"], "missing 'Sodium carbonate'"),
        ("successors_exclude", ["silica GEL"], "present 'silica GEL'"),
        ("relation_kinds_include", ["PRECEDES", "CAUSES"], "missing 'CAUSES'"),
        ("documents_include", ["waterglass/plastic-cup.md"], "missing 'waterglass/plastic-cup.md'"),
        ("recovery_attempted", True, "expected True, got False"),
    ],
)
def test_each_key_fails(key: str, value: Any, message: str) -> None:
    failures = check_case(make_case(**{key: value}), GOOD)
    assert len(failures) == 1, failures
    assert failures[0].startswith(f"{key}: ")
    assert message in failures[0]


def test_include_failure_shows_what_the_response_had() -> None:
    [failure] = check_case(make_case(roles_include=["conflict"]), GOOD)
    assert failure == (
        "roles_include: missing 'conflict' (got 'direct_support', 'graph_neighbor_support')"
    )


def test_abstain_false_fails_on_an_abstention_and_true_passes() -> None:
    abstained = {**GOOD, "status": "abstained"}
    assert check_case(make_case(abstain=True), abstained) == []
    assert check_case(make_case(abstain=False), abstained) == [
        "abstain: expected no abstention, got status 'abstained'"
    ]


def test_budget_reports_each_differing_limit() -> None:
    case = make_case(budget={"fragments": 24, "fragment_chars": 1400, "total_chars": 9000})
    assert check_case(case, GOOD) == [
        "budget: fragments expected 24, got 14",
        "budget: total_chars expected 9000, got 5600",
    ]


def test_relation_kinds_come_from_both_windows() -> None:
    response = copy.deepcopy(GOOD)
    response["trace"]["graphContext"]["predecessors"] = []
    [failure] = check_case(make_case(relation_kinds_include=["PRECEDES", "ANALOGOUS_TO"]), response)
    assert failure.startswith("relation_kinds_include: missing 'PRECEDES'")


def test_documents_match_cited_paths_exactly() -> None:
    [failure] = check_case(make_case(documents_include=["WaterGlass/waterglass.md"]), GOOD)
    assert failure.startswith("documents_include: missing 'WaterGlass/waterglass.md'")


@pytest.mark.parametrize("key", sorted(PASSING))
def test_missing_path_is_a_failure_naming_the_path(key: str) -> None:
    assert check_case(make_case(**{key: PASSING[key]}), {}) == [
        f"{key}: response has no {PATHS[key]}"
    ]


def test_missing_path_does_not_stop_the_other_checks() -> None:
    response = {"answer": "no sodium here", "status": "answered"}
    case = make_case(sufficiency="sufficient", answer_includes=["silicate"], abstain=False)
    assert check_case(case, response) == [
        "sufficiency: response has no trace.ragSufficiencyReview.status",
        "answer_includes: answer lacks 'silicate'",
    ]


def test_null_section_is_a_missing_path() -> None:
    response = copy.deepcopy(GOOD)
    response["trace"]["ragRecovery"] = None
    assert check_case(make_case(recovery_attempted=False), response) == [
        "recovery_attempted: response has no trace.ragRecovery.attempted"
    ]


def test_list_item_without_the_field_names_its_index() -> None:
    response = copy.deepcopy(GOOD)
    response["trace"]["ragContextPack"]["fragments"].append({"text": "no role"})
    assert check_case(make_case(roles_exclude=["conflict"]), response) == [
        "roles_exclude: response has no trace.ragContextPack.fragments[2].role"
    ]


def test_wrong_types_are_failures() -> None:
    response = copy.deepcopy(GOOD)
    response["answer"] = None
    response["citations"] = "waterglass/waterglass.md"
    response["trace"]["ragContextPack"]["budget"]["fragments"] = True
    case = make_case(
        answer_excludes=["x"],
        documents_include=["waterglass/waterglass.md"],
        budget=PASSING["budget"],
    )
    assert check_case(case, response) == [
        "answer_excludes: response answer is not a string",
        "documents_include: response citations is not a list",
        "budget: fragments expected 14, got True",
    ]


def test_format_result_and_summary_line() -> None:
    assert format_result("waterglass_en", []) == "PASS waterglass_en"
    assert (
        format_result("waterglass_en", ["sufficiency: expected 'a', got 'b'", "abstain: x"])
        == "FAIL waterglass_en: sufficiency: expected 'a', got 'b'; abstain: x"
    )
    assert format_result("c", ["line one\nline two"]) == "FAIL c: line one line two"
    assert summary_line(3, 1) == "3 passed, 1 failed"
    assert summary_line(0, 0) == "0 passed, 0 failed"


# --- loading ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "count"), [("pipeline.yaml", 14), ("answers.yaml", 28), ("conflicts.yaml", 77)]
)
def test_shipped_probe_files_load(name: str, count: int) -> None:
    probe_file = load_cases(PROBES / name)
    assert len(probe_file.cases) == count
    assert all(case.scope and case.query for case in probe_file.cases)


@pytest.mark.parametrize("name", ["pipeline.yaml", "answers.yaml", "conflicts.yaml"])
def test_every_shipped_case_has_paraphrases(name: str) -> None:
    # The loader checks count and distinctness when the key is there; this makes it required
    # for the shipped suites.
    missing = [case.id for case in load_cases(PROBES / name).cases if not case.wordings]
    assert missing == []


def test_shipped_unanswerable_cases_abstain_in_every_wording() -> None:
    cases = load_cases(PROBES / "answers.yaml").cases
    unanswerable = [case for case in cases if case.expect.abstain is True]
    assert len(unanswerable) >= 11  # the out-of-scope case and the on-topic ones
    assert all(len(case.wordings) >= MIN_PARAPHRASES for case in unanswerable)


def test_shipped_pipeline_file_decodes_depth_and_budget() -> None:
    cases = {case.id: case for case in load_cases(PROBES / "pipeline.yaml").cases}
    deep = cases["contextoverflow_deep_depth_param_en"]
    assert deep.depth == "deep"
    assert deep.expect.budget is not msgspec.UNSET
    assert (deep.expect.budget.fragments, deep.expect.budget.total_chars) == (24, 9000)
    assert cases["waterglass_definition_compact_en"].depth is None


def test_every_key_round_trips_through_yaml_and_passes(tmp_path: Path) -> None:
    case = {"id": "all_keys", "query": "q", "scope": "waterglass", "depth": "deep"}
    path = write(tmp_path, yaml.safe_dump({"cases": [{**case, "expect": PASSING}]}))
    [loaded] = load_cases(path).cases
    assert loaded.depth == "deep"
    assert loaded.expect.roles_include == ("direct_support", "graph_neighbor_support")
    assert check_case(loaded, GOOD) == []


def _load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ProbeFileError) as info:
        load_cases(path)
    assert str(path) in str(info.value)
    return str(info.value)


CASE = "cases:\n  - id: one\n    query: q\n    scope: s\n"


def test_unknown_expect_key_names_key_and_case(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    expect: {sufficency: sufficient}\n")
    assert "case 'one'" in message
    assert "unknown field `sufficency`" in message


def test_unknown_case_key_names_key_and_case(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    top_k: 5\n    expect: {}\n")
    assert "case 'one'" in message
    assert "unknown field `top_k`" in message


def test_unknown_top_level_key(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    expect: {}\nsettings: {}\n")
    assert "top level" in message
    assert "unknown field `settings`" in message


@pytest.mark.parametrize(
    ("expect", "where"),
    [
        ("{sufficiency: enough}", "$.expect.sufficiency"),
        ("{degradation: stale}", "$.expect.degradation"),
        ("{roles_include: [direct_support, neighbour]}", "$.expect.roles_include[1]"),
        ("{decisions_include: [dropped]}", "$.expect.decisions_include[0]"),
        ("{source_boundary: page}", "$.expect.source_boundary"),
        ("{failure_stages_include: [ranking]}", "$.expect.failure_stages_include[0]"),
    ],
)
def test_bad_enum_value_is_named(tmp_path: Path, expect: str, where: str) -> None:
    message = _load_error(tmp_path, CASE + f"    expect: {expect}\n")
    assert "case 'one'" in message
    assert "Invalid enum value" in message
    assert where in message


def test_bad_depth_is_named(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    depth: shallow\n    expect: {}\n")
    assert "Invalid enum value 'shallow'" in message
    assert "$.depth" in message


def test_unknown_relation_type_is_named(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    expect: {relation_kinds_include: [ANALOGOUS]}\n")
    assert "case 'one'" in message
    assert "unknown relation type(s) 'ANALOGOUS'" in message


@pytest.mark.parametrize(
    "expect",
    [
        "{abstain: maybe}",
        "{answer_includes: sodium silicate}",  # a string, not a list
        "{budget: {fragments: 14, fragment_chars: 1400}}",
        "{budget: {fragments: 0, fragment_chars: 1400, total_chars: 5600}}",
        "{answer_includes: [2026-07-01]}",  # an unquoted date is not text
        "{answer_includes: ['']}",
    ],
)
def test_bad_value_types_are_rejected(tmp_path: Path, expect: str) -> None:
    assert "case 'one'" in _load_error(tmp_path, CASE + f"    expect: {expect}\n")


def test_empty_expectation_is_rejected_not_ignored(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    expect:\n      sufficiency:\n")
    assert "got `null` - at `$.expect.sufficiency`" in message


def test_missing_scope_is_rejected(tmp_path: Path) -> None:
    text = "cases:\n  - id: one\n    query: q\n    expect: {}\n"
    message = _load_error(tmp_path, text)
    assert "case 'one'" in message
    assert "missing required field `scope`" in message


def test_missing_id_names_the_position(tmp_path: Path) -> None:
    text = CASE + "    expect: {}\n  - query: q\n    scope: s\n    expect: {}\n"
    message = _load_error(tmp_path, text)
    assert "cases[1]" in message
    assert "missing required field `id`" in message


def test_duplicate_case_ids_are_rejected(tmp_path: Path) -> None:
    text = CASE + "    expect: {}\n" + CASE.removeprefix("cases:\n") + "    expect: {}\n"
    message = _load_error(tmp_path, text)
    assert "duplicate case id 'one' (cases[0] and cases[1])" in message


def test_duplicate_yaml_key_is_rejected(tmp_path: Path) -> None:
    message = _load_error(tmp_path, CASE + "    scope: t\n    expect: {}\n")
    assert "duplicate key 'scope'" in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "top-level `cases:` list"),
        ("- id: one\n", "top-level `cases:` list"),
        ("cases: []\n", "`cases:` is empty"),
        ("cases:\n  - {id: one\n", "invalid YAML"),
    ],
)
def test_malformed_files_are_rejected(tmp_path: Path, text: str, message: str) -> None:
    assert message in _load_error(tmp_path, text)


def test_missing_file_is_a_probe_file_error(tmp_path: Path) -> None:
    with pytest.raises(ProbeFileError, match="cannot read the file"):
        load_cases(tmp_path / "absent.yaml")


# --- paraphrases ------------------------------------------------------------------------------

PARAPHRASES = ("what's water glass", "water glass definition", "explain water glass")


def paraphrase_case(paraphrases: list[str], query: str = "what is water glass?") -> str:
    lines = "".join(f"      - {json.dumps(text, ensure_ascii=False)}\n" for text in paraphrases)
    return (
        f"cases:\n  - id: one\n    query: {json.dumps(query, ensure_ascii=False)}\n"
        f"    scope: s\n    paraphrases:\n{lines}    expect: {{}}\n"
    )


def test_paraphrases_load_in_file_order(tmp_path: Path) -> None:
    [case] = load_cases(write(tmp_path, paraphrase_case(list(PARAPHRASES)))).cases
    assert case.paraphrases == PARAPHRASES
    assert case.wordings == PARAPHRASES


def test_paraphrases_are_optional_in_the_format(tmp_path: Path) -> None:
    [case] = load_cases(write(tmp_path, CASE + "    expect: {}\n")).cases
    assert case.paraphrases is msgspec.UNSET
    assert case.wordings == ()


def test_chinese_paraphrases_load(tmp_path: Path) -> None:
    wordings = ["什么是水玻璃？", "请解释一下水玻璃", "水玻璃的定义是什么"]
    [case] = load_cases(write(tmp_path, paraphrase_case(wordings, "水玻璃是什么？"))).cases
    assert case.wordings == tuple(wordings)


@pytest.mark.parametrize("count", [0, 1, 2])
def test_fewer_than_three_paraphrases_are_rejected(tmp_path: Path, count: int) -> None:
    text = (
        paraphrase_case(list(PARAPHRASES[:count]))
        if count
        else CASE + ("    paraphrases: []\n    expect: {}\n")
    )
    message = _load_error(tmp_path, text)
    assert "case 'one'" in message
    assert f"paraphrases needs at least 3 other wordings of the query, got {count}" in message


@pytest.mark.parametrize(
    ("paraphrases", "message"),
    [
        # the query again, differing only in letter case, spacing and punctuation
        (
            ["What is  WATER glass", *PARAPHRASES[1:]],
            "paraphrases[0] 'What is  WATER glass' repeats the query",
        ),
        (
            [*PARAPHRASES, "Explain water-glass!"],
            "paraphrases[3] 'Explain water-glass!' repeats paraphrases[2]",
        ),
        ([*PARAPHRASES[:2], "？？"], "paraphrases[2] '？？' has no words"),
    ],
)
def test_repeated_or_empty_wordings_are_rejected(
    tmp_path: Path, paraphrases: list[str], message: str
) -> None:
    error = _load_error(tmp_path, paraphrase_case(paraphrases))
    assert "case 'one'" in error
    assert message in error


def test_chinese_repeat_of_the_query_is_rejected(tmp_path: Path) -> None:
    wordings = ["水玻璃是什么", "请解释一下水玻璃", "水玻璃的定义是什么"]  # only the ？ dropped
    message = _load_error(tmp_path, paraphrase_case(wordings, "水玻璃是什么？"))
    assert "paraphrases[0] '水玻璃是什么' repeats the query" in message


@pytest.mark.parametrize("value", ["'what is it?'", "", "[what is it, other, '']", "[1, 2, 3]"])
def test_paraphrases_of_the_wrong_type_are_rejected(tmp_path: Path, value: str) -> None:
    message = _load_error(tmp_path, CASE + f"    paraphrases: {value}\n    expect: {{}}\n")
    assert "case 'one'" in message
    assert "$.paraphrases" in message


def test_wording_key_ignores_case_spacing_and_punctuation_only() -> None:
    assert wording_key(" What is X? ") == wording_key("what  is x") == "what is x"
    assert wording_key("what is the x?") != wording_key("what is x?")
    assert wording_key("version 1.0") != wording_key("version 10")


def _paraphrased(**expect: Any) -> ProbeCase:
    return msgspec.structs.replace(make_case(**expect), paraphrases=PARAPHRASES)


def test_paraphrase_with_the_query_status_and_documents_passes() -> None:
    case = _paraphrased(documents_include=["waterglass/waterglass.md"], answer_includes=["x"])
    # answer text is not held against a paraphrase, even when the query's check names it
    assert check_paraphrase(case, PARAPHRASES[0], GOOD, {**GOOD, "answer": "other"}) == []


def test_paraphrase_status_must_match_the_query_status() -> None:
    refused = {**GOOD, "status": "abstained", "citations": []}
    assert check_paraphrase(_paraphrased(), "water glass definition", GOOD, refused) == [
        "paraphrase 'water glass definition': status expected 'answered' (the query's), "
        "got 'abstained'"
    ]
    # for an unanswerable case the query abstains, so every paraphrase must abstain too
    assert check_paraphrase(_paraphrased(abstain=True), "x", refused, GOOD) == [
        "paraphrase 'x': status expected 'abstained' (the query's), got 'answered'"
    ]
    assert check_paraphrase(_paraphrased(abstain=True), "x", refused, refused) == []


def test_paraphrase_is_held_to_the_case_when_the_query_breaks_abstain() -> None:
    refused = {**GOOD, "status": "abstained", "citations": []}
    unanswerable = _paraphrased(abstain=True)
    # the query answered an unanswerable case: a paraphrase that abstains is right, not blamed
    assert check_paraphrase(unanswerable, "p", GOOD, refused) == []
    assert check_paraphrase(unanswerable, "p", GOOD, {**GOOD, "status": "partial"}) == [
        "paraphrase 'p': status expected 'abstained' (the case's; the query got 'answered'), "
        "got 'partial'"
    ]
    answerable = _paraphrased(abstain=False)
    assert check_paraphrase(answerable, "p", refused, {**GOOD, "status": "stale"}) == []
    assert check_paraphrase(answerable, "p", refused, refused) == [
        "paraphrase 'p': status expected no abstention (the case's; the query got 'abstained' "
        "too), got 'abstained'"
    ]


def test_abstained_paraphrase_is_not_also_held_to_documents() -> None:
    case = _paraphrased(documents_include=["waterglass/waterglass.md"])
    refused = {**GOOD, "status": "abstained", "citations": []}
    [failure] = check_paraphrase(case, "p", GOOD, refused)
    assert failure.startswith("paraphrase 'p': status expected 'answered'")


def test_paraphrase_is_held_to_documents_include() -> None:
    case = _paraphrased(documents_include=["waterglass/waterglass.md"])
    other = {**GOOD, "citations": [{"path": "waterglass/plastic-cup.md"}]}
    assert check_paraphrase(case, "p", GOOD, other) == [
        "paraphrase 'p': documents_include: missing 'waterglass/waterglass.md' "
        "(got 'waterglass/plastic-cup.md')"
    ]


def test_paraphrase_decisions_partial_counts_as_an_answer_conflict_does_not() -> None:
    assert check_paraphrase(_paraphrased(), "p", GOOD, {**GOOD, "status": "partial"}) == []
    [failure] = check_paraphrase(_paraphrased(), "p", GOOD, {**GOOD, "status": "conflict"})
    assert "expected 'answered' (the query's), got 'conflict'" in failure


def test_known_gap_lines() -> None:
    assert format_result("c", ["x"], "why") == "GAP c (why): x"
    assert format_result("c", [], "why") == "PASS c (known gap closed: why)"
    assert format_result("c", ["x"]) == "FAIL c: x"
    assert summary_line(3, 0, 2) == "3 passed, 0 failed, 2 known gaps"


def test_paraphrase_shape_errors_are_failures() -> None:
    case = _paraphrased(documents_include=["waterglass/waterglass.md"])
    assert check_paraphrase(case, "p", {}, {"status": "answered"}) == [
        "paraphrase 'p': status: response has no status",
        "paraphrase 'p': documents_include: response has no citations",
    ]


def test_paraphrase_failures_join_the_case_line() -> None:
    refused = {**GOOD, "status": "abstained", "citations": []}
    failures = check_paraphrase(_paraphrased(), "p: a; b", GOOD, refused)
    assert format_result("one", failures) == (
        "FAIL one: paraphrase 'p: a; b': status expected 'answered' (the query's), got 'abstained'"
    )
    assert paraphrase_summary_line(40, 2) == "paraphrases: 40 passed, 2 failed"


def test_paraphrase_eval_set_is_in_step_with_the_probe_files() -> None:
    from bench.kb_paraphrases import OUT, build_questions
    from service.evaluation.questions import read_questions

    shipped = read_questions(PROBES.parents[1] / OUT)
    assert shipped == build_questions(PROBES), "rerun: .venv/bin/python -m bench.kb_paraphrases"
    assert {q.id.split(":")[0] for q in shipped if not q.answerable} >= {"kitchen", "networking"}
