"""Comparable fact extraction: every fact class and every qualifier, with hard negatives."""

from __future__ import annotations

import pytest

from service.text.facts import (
    Passage,
    document_profiles,
    extract_facts,
    is_instruction,
    norm_token,
    normalise_value,
    qualifiers,
)

_PARAGRAPH_START = 100


def facts_of(text: str, kind: str = "paragraph") -> list[tuple[str, str, str]]:
    """(kind, subject, value) of the attribute facts of one paragraph."""
    passage = Passage(
        document_id="d1", path="a.md", paragraph_id="p1", text=text,
        start_offset=_PARAGRAPH_START, start_line=7, kind=kind,
    )  # fmt: skip
    return [(f.kind, f.subject, f.value) for f in extract_facts([passage]) if f.kind != "aligned"]


# sentence | kind | subject | value
CLASSES = """
The calibration tolerance is ±0.10 mm. | measurement | calibration tolerance | ±0.10 mm
The calibration tolerance is +/-0.50 mm. | measurement | calibration tolerance | +/-0.50 mm
The health check timeout is 2 seconds. | measurement | health check timeout | 2 seconds
The release date is 2026-07-01. | date | release date | 2026-07-01
The launch date is July 1, 2026. | date | launch date | July 1, 2026
The audit trail status is enabled. | state | audit trail status | enabled
The maintenance mode is off. | state | maintenance mode | off
The control module location is Rack A. | location | control module location | Rack A
The backup site is Frankfurt. | location | backup site | Frankfurt
The control module is located in Rack B. | location | control module location | Rack B
The retry limit is 3. | quantity | retry limit | 3
The retry attempts are 5. | quantity | retry attempts | 5
The queue capacity is 10,000. | quantity | queue capacity | 10,000
The deployment owner is Release Ops. | owner | deployment owner | Release Ops
The billing service is owned by Payments Team. | owner | billing service owner | Payments Team
The webhook endpoint is /api/v1/hooks. | endpoint | webhook endpoint | /api/v1/hooks
The health URL is https://example.com/healthz. | endpoint | health url | https://example.com/healthz
The storage dependency is SQLite. | dependency | storage dependency | SQLite
The HTTP client library is httpx. | dependency | http client library | httpx
The payload format is JSON. | format | payload format | JSON
The character encoding is UTF-8. | format | character encoding | UTF-8
The transport protocol is HTTP/1.1. | protocol | transport protocol | HTTP/1.1
The transport protocol is WebSocket. | protocol | transport protocol | WebSocket
The runtime version is 1.2.0. | version | runtime version | 1.2.0
The service port is 8443. | port | service port | 8443
The response status code is 503. | status_code | response status code | 503
"""


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (row[0], tuple(row[1:]))
        for row in (
            tuple(part.strip() for part in line.split("|")) for line in CLASSES.strip().splitlines()
        )
    ],
)  # fmt: skip
def test_each_fact_class_is_extracted(sentence: str, expected: tuple[str, str, str]) -> None:
    assert facts_of(sentence) == [expected]


@pytest.mark.parametrize(
    "sentence",
    [
        "The calibration tolerance is tight.",  # measurement without a figure
        "The tolerance conflict probe is the bench sheet for the gauge head.",  # no class head
        "The release date is not fixed yet.",  # negated
        "The audit trail status is not enabled.",  # negated state
        "Only corrections made while the audit trail is enabled have a record.",  # no subject head
        "The control module location is unknown to the night shift.",  # lower-case prose
        "It records where the module is installed today.",  # verb, not a dependency value
        "No plugin is required.",  # quantifier subject
        "One optional dependency is slow.",  # quantifier subject
        "The service port is 99999.",  # not a port number
        "The response status code is 42.",  # not an HTTP status
        "The runtime version is stable.",  # not version-shaped
        "The deployment owner is the team on call.",  # article, not a name
        "The retry limit is high.",  # no number
    ],
)
def test_hard_negatives_yield_no_fact(sentence: str) -> None:
    assert facts_of(sentence) == []


def test_version_in_a_path_is_value_text_not_a_condition() -> None:
    [fact] = [f for f in _extract("The webhook endpoint is /api/v1/hooks.") if f.kind != "aligned"]
    assert fact.scope == ()


def test_a_version_value_is_not_its_own_condition() -> None:
    [fact] = [f for f in _extract("The runtime version is 2.0.0.") if f.kind != "aligned"]
    assert fact.scope == ()


@pytest.mark.parametrize(
    ("sentence", "scope"),
    [
        ("The current retry limit is 3.", ()),  # current is the default scope
        ("The audit trail status is currently enabled.", ()),
        ("Historically, the retry limit was 5.", (("temporal", "historical"),)),
        ("The historical retry limit was 5.", (("temporal", "historical"),)),
        ("Previously, the release date was 2026-05-20.", (("temporal", "historical"),)),
        ("The formerly used owner was Rollback Team.", (("temporal", "historical"),)),
        ("The planned release date is 2026-08-15.", (("temporal", "planned"),)),
        ("The upcoming release date is 2026-08-15.", (("temporal", "planned"),)),
        ("In the staging environment, the retry limit is 3.", (("environment", "staging"),)),
        ("In production, the retry limit is 5.", (("environment", "production"),)),
        ("For the canary deployment the retry limit is 2.", (("environment", "canary"),)),
        ("On the UAT cluster the retry limit is 4.", (("environment", "uat"),)),
        ("In version 1.0, the retry limit is 3.", (("version", "1"),)),
        ("In version 2.0, the retry limit is 5.", (("version", "2"),)),
        ("The v2 retry limit is 5.", (("version", "2"),)),
        ("On the Windows platform, the retry limit is 3.", (("platform", "windows"),)),
        ("On Android, the retry limit is 5.", (("platform", "android"),)),
        ("On macOS the retry limit is 4.", (("platform", "macos"),)),
        ("For mobile clients the retry limit is 2.", (("platform", "mobile"),)),
        ("On the web the retry limit is 6.", (("platform", "web"),)),
    ],
)
def test_qualifiers(sentence: str, scope: tuple[tuple[str, str], ...]) -> None:
    assert qualifiers(sentence) == scope


@pytest.mark.parametrize(
    "sentence",
    [
        "The retry window is 30 seconds.",  # "window" is not Windows
        "The film went into production in 1979.",  # production as prose, not an environment
        "The batch size is 200 in both versions.",  # no specific version
        "The endpoint is /api/v1/hooks.",  # a path segment is not a version
        "The package name is web-client.",  # web as part of a name, not a platform phrase
        "The production of the album took two years.",  # no environment phrasing
        "The stage lights are blue.",  # stage as a noun
    ],
)
def test_qualifier_hard_negatives(sentence: str) -> None:
    assert qualifiers(sentence) == ()


def test_provenance_offsets_and_lines() -> None:
    text = "Intro line.\nThe retry limit is 3. The retry limit is 5."
    facts = [f for f in _extract(text) if f.kind == "quantity"]
    assert [f.value for f in facts] == ["3", "5"]
    second = facts[1]
    assert text[second.sentence_start : second.sentence_end] == second.sentence
    assert text[second.value_start : second.value_end] == "5"
    assert second.start_offset == _PARAGRAPH_START + second.sentence_start
    assert second.line == 8  # the paragraph starts on line 7; the sentence is on its 2nd line


def test_code_blocks_are_not_read() -> None:
    assert facts_of("The retry limit is 3.", kind="code") == []


@pytest.mark.parametrize(
    ("kind", "a", "b"),
    [
        ("measurement", "±0.10 mm", "+/-0.1 mm"),
        ("date", "July 1, 2026", "2026-07-01"),
        ("date", "1 July 2026", "2026-07-01"),
        ("state", "on", "enabled"),
        ("quantity", "10,000", "10000"),
        ("version", "v2.0", "2"),
        ("endpoint", "/api/hooks/", "/api/hooks"),
        ("dependency", "PostgreSQL", "postgresql"),
    ],
)
def test_equal_values_normalise_alike(kind: str, a: str, b: str) -> None:
    assert normalise_value(kind, a) == normalise_value(kind, b)  # type: ignore[arg-type]


def test_different_values_stay_different() -> None:
    assert normalise_value("measurement", "±0.10 mm") != normalise_value("measurement", "±0.50 mm")
    assert normalise_value("state", "enabled") != normalise_value("state", "disabled")


def test_aligned_facts_take_value_runs_with_their_frame() -> None:
    text = "The parish was founded in 1856, the present cathedral was built later."
    aligned = [f for f in _extract(text) if f.kind == "aligned"]
    assert [f.value for f in aligned] == ["1856"]
    assert aligned[0].key == "aligned:was founded in _ the present cathedral"


@pytest.mark.parametrize(
    ("a", "b"),
    [("13.6%", "13.6"), ("$404.9", "404.9"), ("1,294", "1294"), ("Brooks'", "brooks")],
)
def test_aligned_tokens_ignore_layout(a: str, b: str) -> None:
    assert norm_token(a) == norm_token(b)


def test_aligned_tokens_keep_content() -> None:
    assert norm_token("13.6%") != norm_token("13.7%")
    assert norm_token("Brooks") != norm_token("Brook")


def test_aligned_value_runs_stop_at_a_sentence_end_but_not_at_an_initial() -> None:
    text = "It was recorded in Stoke. Groves played bass for David S. Ware in that long winter."
    values = [f.value for f in _extract(text) if f.kind == "aligned"]
    assert "Stoke" in values and "Stoke. Groves" not in values
    assert "David S. Ware" in values


def test_table_rows_give_no_aligned_facts() -> None:
    facts = _extract("| 2010 | 3,559 | 1.9 % |", kind="table")
    assert [f for f in facts if f.kind == "aligned"] == []


def _extract(text: str, kind: str = "paragraph") -> list:  # type: ignore[type-arg]
    passage = Passage(
        document_id="d1", path="a.md", paragraph_id="p1", text=text,
        start_offset=_PARAGRAPH_START, start_line=7, kind=kind,
    )  # fmt: skip
    return extract_facts([passage])


def test_document_profiles_hold_each_documents_names_figures_and_words() -> None:
    def passage(document: str, number: int, text: str, kind: str = "paragraph") -> Passage:
        return Passage(
            document_id=document, path=f"{document}.md", paragraph_id=f"{document}#{number}",
            text=text, start_offset=0, start_line=1, kind=kind,
        )  # fmt: skip

    profiles = document_profiles([
        passage("a", 0, "The Heat was recorded by Needtobreathe in 2007 [3]."),
        passage("a", 1, "It sold 1,200 copies in Atlanta, said J. Smith."),
        passage("a", 2, "x = Secret(42)", kind="code"),
        passage("b", 0, "The Heat was recorded by Coldplay in 2007 in London."),
    ])  # fmt: skip
    a, b = profiles["a"], profiles["b"]
    # sentence-start words, initials and citation marks are no anchors; code is not read
    assert a.anchors == {"heat", "needtobreathe", "2007", "1200", "atlanta", "smith"}
    assert "recorded" in a.words and "secret" not in a.words
    # shared: heat, 2007 of b's four anchors (heat, coldplay, 2007, london)
    assert a.same_entity_share(b) == b.same_entity_share(a) == 0.5


# --- conditions, options and instructions are not assertions ------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        # the state a condition names (a manual section: title, then its conditional sentences)
        "Turn off Emergency mode When emergency mode is turned off, the device returns to normal.",
        "NOTE When Emergency mode is activated, Locating method is set to Battery saving.",
        "After Emergency mode is turned off, you may need to adjust your location settings.",
        "If the maintenance mode is on, requests wait in the queue.",
        "Requests wait in the queue while the maintenance mode is on.",
        "Unless the audit trail status is enabled, corrections leave no record.",
        # options offered, not a value stated
        "The maintenance mode is on or off.",
        "The maintenance mode is on/off.",
        "The payload format is JSON or YAML, as the client asks.",
    ],
)
def test_conditions_and_options_are_not_facts(sentence: str) -> None:
    assert facts_of(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "condition"),
    [
        ("When emergency mode is activated, the retry limit is 3.", "if emergency mode enabled"),
        # another subordinator and another wording of the same state: one condition
        ("If the emergency mode is turned on, the retry limit is 3.", "if emergency mode enabled"),
        ("The retry limit is 3 if the emergency mode is on.", "if emergency mode enabled"),
        # no comma: the main clause starts after the condition's own complement
        ("When the queue is full the retry limit is 3.", "if queue full"),
        ("Unless the queue is full, the retry limit is 3.", "unless queue full"),
        ("After the upgrade, the retry limit is 3.", "after upgrade"),
    ],
)
def test_a_condition_scopes_the_statement_it_governs(sentence: str, condition: str) -> None:
    [fact] = [f for f in _extract(sentence) if f.kind != "aligned"]
    assert (fact.subject, fact.value) == ("retry limit", "3")
    assert fact.scope == (("condition", condition),)


def test_a_condition_governs_only_its_own_statement() -> None:
    sentence = "If the deployment fails, the retry limit is 5; the service port is 8443."
    scopes = {f.subject: f.scope for f in _extract(sentence) if f.kind != "aligned"}
    assert scopes == {"retry limit": (("condition", "if deployment fails"),), "service port": ()}
    # ", while" contrasts two statements: neither is the other's condition
    contrast = "The retry limit is 3, while the queue size is 5."
    assert [f.scope for f in _extract(contrast) if f.kind != "aligned"] == [(), ()]
    # a condition behind a comma belongs to the next clause, not to the value before it
    encoding = "The character encoding is UTF-8, and messages are compressed before they are sent."
    assert [f.scope for f in _extract(encoding) if f.kind != "aligned"] == [()]


@pytest.mark.parametrize(
    "sentence",
    [
        "Tap More options > Send email.",
        "From Settings, tap Biometrics and security > Fingerprints.",
        "Transfer data from an old device From Apps, tap Samsung folder > Smart Switch.",
        "TIP When sharing a file, tap Wi-Fi Direct to use this feature.",
        "Front video size: Select a resolution.",
        "Swipe until the Apps edge panel is displayed.",
        "From Settings, tap Connections, and then tap to turn on Wi-Fi.",
        "To reset the router, hold the reset button for 10 seconds.",
    ],
)
def test_instructions(sentence: str) -> None:
    assert is_instruction(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Use of force was limited in 1990.",  # the verb's word as a noun
        "Open Season is a 2006 American film.",  # as a title word
        "Hold Steady is an American rock band from Brooklyn.",
        "Set in Paris, the film stars John Smith.",  # a participle
        "In 1990, he moved to Paris.",
        "The population was 3,559 at the 2010 census.",
    ],
)
def test_statements_are_not_instructions(sentence: str) -> None:
    assert not is_instruction(sentence)


def test_names_in_an_instruction_are_no_aligned_facts_but_figures_are() -> None:
    labels = "For more information, see the guide. From Settings, tap Biometrics and security."
    assert [f.value for f in _extract(labels) if f.kind == "aligned"] == []
    figures = "To reset the router, hold the reset button for 10 seconds and wait."
    assert [f.value for f in _extract(figures) if f.kind == "aligned"] == ["10"]
    statement = "The phone was released by Samsung in 2019 in New York."
    assert [f.value for f in _extract(statement) if f.kind == "aligned"] == ["Samsung", "2019"]
