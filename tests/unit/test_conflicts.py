"""Conflict detection over complete documents: where contradictions sit, qualifier scopes, the
aligned-statement rule for open prose, relevance selection and the conflict's own sentence."""

from __future__ import annotations

import pytest

from service.pipeline.conflicts import (
    ConflictSettings,
    conflict_text,
    detect_conflicts,
    qualified_facts,
    scan_conflicts,
    select_conflicts,
    word_edits,
)
from service.text.facts import Passage, document_profiles, extract_facts, in_context
from tests.unit.conflict_fixtures import CATHEDRAL, CENSUS, FILLER, SCHOOL, document, values


def test_adjacent_sentences_conflict() -> None:
    text = "The calibration tolerance is ±0.10 mm. The calibration tolerance is ±0.50 mm."
    passages = document("a.md", text)
    assert values(passages) == [("±0.10 mm", "±0.50 mm")]


def test_same_section_non_adjacent_conflict() -> None:
    passages = document(
        "a.md", "The release date is 2026-07-01.", FILLER, FILLER, FILLER,
        "The release date is 2026-08-15.",
    )  # fmt: skip
    assert values(passages) == [("2026-07-01", "2026-08-15")]


def test_remote_appendix_conflict_across_documents() -> None:
    nominal = document("nominal.md", "Opening words.", *[FILLER] * 12, "The retry limit is 3.")
    field = document("field.md", "Opening words.", *[FILLER] * 12, "The retry limit is 5.")
    [conflict] = scan_conflicts(nominal + field).conflicts
    assert conflict.values == ("3", "5")
    assert [side.path for side in conflict.sides] == ["nominal.md", "field.md"]
    assert conflict.sides[1].line == 1 + 2 * 13


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The audit trail status is enabled.", "The audit trail status is disabled."),
        ("The control module location is Rack A.", "The control module location is Rack B."),
        ("The retry attempts are 3.", "The retry attempts are 5."),
        ("The deployment owner is Release Ops.", "The deployment owner is Rollback Team."),
        ("The webhook endpoint is /api/v1/hooks.", "The webhook endpoint is /api/v2/hooks."),
        ("The storage dependency is SQLite.", "The storage dependency is PostgreSQL."),
        ("The payload format is JSON.", "The payload format is YAML."),
        ("The transport protocol is HTTP/1.1.", "The transport protocol is WebSocket."),
        ("The runtime version is 1.2.0.", "The runtime version is 2.0.0."),
        ("The service port is 443.", "The service port is 8443."),
        ("The response status code is 200.", "The response status code is 503."),
    ],
)
def test_every_fact_class_conflicts_when_unqualified(first: str, second: str) -> None:
    assert len(values(document("a.md", first) + document("b.md", second))) == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The calibration tolerance is ±0.10 mm.", "The calibration tolerance is +/-0.1 mm."),
        ("The release date is July 1, 2026.", "The release date is 2026-07-01."),
        ("The reference ring diameter is 40.000 mm.", "The reference ring diameter is 40.000 mm."),
        ("The maintenance mode is on.", "The maintenance mode is enabled."),
    ],
)
def test_equal_values_written_differently_do_not_conflict(first: str, second: str) -> None:
    assert values(document("a.md", first, second)) == []


def test_different_subjects_do_not_conflict() -> None:
    passages = document(
        "a.md", "The retry limit is 3. The batch size is 200. The queue capacity is 10000.",
        "The metrics port is 9090. The service port is 443.",
    )  # fmt: skip
    assert values(passages) == []


# first fact || second fact
QUALIFIED = """
The current release date is 2026-07-01. || Previously, the release date was 2026-05-20.
The current release date is 2026-07-01. || The planned release date is 2026-08-15.
The audit trail status is currently enabled. || Historically, the audit trail status was disabled.
In the staging environment, the retry limit is 3. || In the production environment, the retry limit is 5.
In version 1.0, the deployment owner is Release Ops. || In version 2.0, the deployment owner is Rollback Team.
On the Windows platform, the payload format is JSON. || On the Android platform, the payload format is MessagePack.
In staging, the webhook endpoint is https://staging.example.net/api/hooks. || In production, the webhook endpoint is https://example.com/api/hooks.
In version 1.0, the webhook endpoint is /api/release-one/hooks. || In version 2.0, the webhook endpoint is /api/release-two/hooks.
"""  # noqa: E501
SAME_SCOPE = """
In the staging environment, the retry limit is 3. || In the staging environment, the retry limit is 5.
In version 2.0, the storage dependency is SQLite. || In version 2.0, the storage dependency is PostgreSQL.
On the Android platform, the service port is 443. || On Android, the service port is 8443.
The historical retry limit was 5. || Historically, the retry limit was 7.
"""  # noqa: E501


def pairs(table: str) -> list[tuple[str, str]]:
    return [tuple(line.split(" || ")) for line in table.strip().splitlines()]  # type: ignore[misc]


@pytest.mark.parametrize(("first", "second"), pairs(QUALIFIED))
def test_qualified_facts_are_separate_scopes(first: str, second: str) -> None:
    # in one document and across two documents alike
    assert values(document("a.md", first, second)) == []
    scan = scan_conflicts(document("a.md", first) + document("b.md", second))
    assert scan.conflicts == ()
    [qualified] = scan.qualified
    assert len(qualified.sides) == 2


@pytest.mark.parametrize(("first", "second"), pairs(SAME_SCOPE))
def test_same_scope_contradictions_still_conflict(first: str, second: str) -> None:
    [conflict] = scan_conflicts(document("a.md", first, second)).conflicts
    assert conflict.scope != ()


def test_current_and_unqualified_are_one_scope() -> None:
    passages = document("a.md", "The current retry limit is 3.", "The retry limit is 5.")
    assert values(passages) == [("3", "5")]


def test_route_version_segments_are_values_not_scopes() -> None:
    passages = document(
        "a.md", "The webhook endpoint is /api/v1/hooks.", "The webhook endpoint is /api/v2/hooks."
    )
    [conflict] = scan_conflicts(passages).conflicts
    assert conflict.scope == ()


# --- aligned statements (open prose) ----------------------------------------------------------


def test_an_edited_copy_of_a_statement_conflicts() -> None:
    passages = document("a.md", CATHEDRAL.format(year=1856)) + document(
        "b.md", CATHEDRAL.format(year=1900)
    )
    [conflict] = scan_conflicts(passages).conflicts
    assert conflict.kind == "aligned"
    assert conflict.values == ("1856", "1900")


def test_a_shared_template_about_other_entities_does_not_conflict() -> None:
    one = CENSUS.format(people="909", households="335", families="268")
    other = CENSUS.format(people="1,636", households="610", families="477")
    assert values(document("a.md", one) + document("b.md", other)) == []


def test_an_edited_census_figure_conflicts() -> None:
    one = CENSUS.format(people="909", households="335", families="268")
    edited = CENSUS.format(people="1,500", households="335", families="268")
    assert values(document("a.md", one) + document("b.md", edited)) == [("909", "1,500")]


RECORDING = (
    "The record was made over three weeks at Sound City with {producer} producing the sessions "
    "for the label in the spring."
)
MEMBERS = "The band members were {}."


def test_pages_about_other_entities_sharing_a_statement_do_not_conflict() -> None:
    # two bands' pages share one sentence shape but almost none of their names: two entities
    one = (
        RECORDING.format(producer="Butch Vig")
        + " "
        + MEMBERS.format("Ann Berg, Carl Dunn, Eva Falk, Gil Hart and Ivo Jung of Oslo")
    )
    other = (
        RECORDING.format(producer="Steve Albini")
        + " "
        + MEMBERS.format("Kai Lund, Max Nyberg, Ole Pihl, Rui Quist and Sam Tovey of Perth")
    )
    passages = document("a.md", one) + document("b.md", other)
    assert values(passages) == []
    # the same two pages are compared when the entity gate is off: the gate decides
    ungated = ConflictSettings(min_same_entity_share=0.0)
    assert [c.values for c in scan_conflicts(passages, ungated).conflicts] == [
        ("Butch Vig", "Steve Albini")
    ]
    # an edited copy of one page keeps its names: one entity, a conflict
    edited = one.replace("Butch Vig", "Steve Albini")
    assert values(document("a.md", one) + document("b.md", edited)) == [
        ("Butch Vig", "Steve Albini")
    ]


def test_pages_that_each_name_both_values_do_not_conflict() -> None:
    # each page names both people: they list them, neither replaced one with the other
    one = RECORDING.format(producer="Butch Vig") + " Steve Albini mixed two songs."
    other = RECORDING.format(producer="Steve Albini") + " Butch Vig mixed two songs."
    assert values(document("a.md", one) + document("b.md", other)) == []
    # one page naming both is not enough: the other page never mentions its rival's value
    only_one = RECORDING.format(producer="Steve Albini") + " Nobody else mixed a song."
    assert values(document("a.md", one) + document("b.md", only_one)) == [
        ("Butch Vig", "Steve Albini")
    ]


def test_citation_markup_does_not_break_alignment() -> None:
    one = CENSUS.format(people="909", households="335", families="268")
    one = one.replace("2000,", "2000 [1],")
    edited = CENSUS.format(people="1,500", households="335", families="268")
    assert values(document("a.md", one) + document("b.md", edited)) == [("909", "1,500")]


def test_aligned_values_that_are_conditions_do_not_conflict() -> None:
    text = "The value on this page applies only on the {} platform. Readers check the other page."
    passages = document("a.md", text.format("Android")) + document("b.md", text.format("Windows"))
    assert values(passages) == []


def test_an_inserted_word_is_not_a_contradiction() -> None:
    text = (
        "The Croatian kuna was introduced in the Independent State of {} on 26 July 1941 and was "
        "fixed to the Reichsmark with dual exchange rates."
    )
    passages = document("a.md", text.format("Croatia NDH")) + document(
        "b.md", text.format("Croatia")
    )
    assert values(passages) == []


def test_words_inserted_before_an_unchanged_statement_are_no_conflict() -> None:
    text = (
        "The family settled in the green valley of the Columbia river in 1950. {}Hill was born in "
        "Spokane, Washington, about 1954 to Victor Hill and his wife."
    )
    headed = document("a.md", text.format("")) + document(
        "b.md", text.format("Early life and education ")
    )
    assert values(headed) == []
    edited = document("a.md", text.format("")) + document(
        "b.md", text.format("").replace("Hill was born", "Dale was born")
    )
    assert values(edited) == [("Hill", "Dale")]


def test_aligned_statements_conflict_only_across_documents() -> None:
    # a list repeats one frame with a different name per item by design
    item = "The Power of Darkness is available online at {} in the public domain collection today."
    passages = document("a.md", item.format("Marxists") + " " + item.format("RevoltLib"))
    assert values(passages) == []
    edited = document("a.md", item.format("Marxists")) + document("b.md", item.format("RevoltLib"))
    assert values(edited) == [("Marxists", "RevoltLib")]


def test_a_typo_next_to_the_edit_does_not_hide_it() -> None:
    # the words after the value differ too ("chuch"): the words before it still align
    typo = CATHEDRAL.format(year=1900).replace("present cathedral", "present chuch")
    passages = document("a.md", CATHEDRAL.format(year=1856)) + document("b.md", typo)
    assert values(passages) == [("1856", "1900")]


def test_the_same_figure_in_other_layout_is_no_conflict() -> None:
    text = (
        "Of all households in the township, {} were made up of individuals living alone, as "
        "the county survey reported for Waupaca County."
    )
    passages = document("a.md", text.format("13.6%")) + document("b.md", text.format("13.6 %"))
    assert values(passages) == []


def test_one_figure_at_two_precisions_is_no_conflict() -> None:
    text = (
        "In the racial makeup of the township, {} of the residents were white and 0.2% were "
        "from two or more races, the county office reported."
    )
    rounded = document("a.md", text.format("93.9%")) + document("b.md", text.format("94%"))
    assert values(rounded) == []
    edited = document("a.md", text.format("93.9%")) + document("b.md", text.format("91.2%"))
    assert values(edited) == [("93.9%", "91.2%")]


def test_short_shared_context_is_not_enough() -> None:
    passages = document("a.md", "Tickets cost 12 dollars.")
    passages += document("b.md", "Tickets cost 15 dollars.")
    assert values(passages) == []


def test_code_is_not_scanned() -> None:
    passages = document("a.md", "The retry limit is 3.\nThe retry limit is 5.", kind="code")
    assert values(passages) == []


# --- what the scan compares: contested facts only, pairs with a focus document -----------------


def _mixed_documents() -> list[Passage]:
    """Attribute conflicts and qualified facts, aligned edits between three documents, a plain
    word edit, a shared template about another entity, and facts that meet nothing."""
    return (
        document("a.md", CATHEDRAL.format(year=1856), "The retry limit is 3.",
                 SCHOOL.format(kind="academy"), "In staging, the service port is 8080.")
        + document("b.md", CATHEDRAL.format(year=1900), "The retry limit is 5.",
                   CENSUS.format(people=909, households=310, families=250))
        + document("c.md", CATHEDRAL.format(year=1921), SCHOOL.format(kind="university"),
                   "In production, the service port is 443.",
                   CENSUS.format(people=1500, households=310, families=250))
    )  # fmt: skip


def test_the_scan_binds_only_contested_facts_and_finds_what_all_facts_give() -> None:
    passages = _mixed_documents()
    settings = ConflictSettings()
    facts = in_context(extract_facts(passages), passages)  # as the scan reads them
    profiles = document_profiles(passages)
    everything = detect_conflicts(facts, settings, profiles) + word_edits(
        passages, settings, len(facts), profiles
    )
    everything.sort(key=lambda c: c.sides[0].order)
    scan = scan_conflicts(passages)
    assert scan.conflicts == tuple(everything)
    assert len(scan.conflicts) >= 4  # retry limit, the cathedral year, the school, the census
    assert scan.qualified == tuple(qualified_facts(facts))
    assert [q.subject for q in scan.qualified] == ["service port"]


def test_with_a_focus_two_other_documents_are_not_compared_with_each_other() -> None:
    passages = _mixed_documents()
    everything = scan_conflicts(passages).conflicts
    focused = scan_conflicts(passages, focus={"d:a.md"}).conflicts
    documents = [{side.document_id for side in c.sides} for c in focused]
    # every aligned conflict has a side in a.md; b.md's census against c.md's is gone
    assert all(
        "d:a.md" in d for c, d in zip(focused, documents, strict=True) if c.kind == "aligned"
    )
    census = [c for c in everything if c.sides[0].sentence.startswith("As of the census")]
    assert census and not any(c.sides[0].sentence.startswith("As of the census") for c in focused)
    # the cathedral's three years: 1921 (c.md) contradicts a.md directly, so it stays a side
    [cathedral] = [c for c in focused if "1856" in c.values]
    assert cathedral.values == ("1856", "1900", "1921")
    # attribute facts are compared in any document (a subject the question names is kept)
    assert ("3", "5") in [c.values for c in focused]
    # what the selection keeps for a question about a.md is unchanged
    for terms in (["cathedral", "founded"], ["retry", "limit"], ["academy", "type"]):
        assert select_conflicts(
            focused, terms=terms, direct_documents={"d:a.md"}, limit=3
        ) == select_conflicts(everything, terms=terms, direct_documents={"d:a.md"}, limit=3)


# --- conditions, options and instructions (consistent manuals) ---------------------------------


def test_states_named_in_conditions_do_not_conflict() -> None:
    # a manual section: its title, then two conditional sentences naming both states
    section = (
        "Turn off Emergency mode When emergency mode is turned off, the device returns to "
        "standard mode. Press and hold the Power key. NOTE When Emergency mode is activated, "
        "Locating method is set to Battery saving. After Emergency mode is turned off, you may "
        "need to adjust your location settings."
    )
    assert values(document("a.md", section)) == []
    # a stated state against one named as a condition: still not a second value
    stated = document("b.md", "The emergency mode is disabled.")
    assert values(document("a.md", section) + stated) == []


def test_conditional_statements_with_different_values_conflict_across_documents() -> None:
    # the same condition worded two ways, two values under it: a real disagreement
    one = document("a.md", "When emergency mode is activated, the retry limit is 3.")
    other = document("b.md", "If the emergency mode is turned on, the retry limit is 5.")
    [conflict] = scan_conflicts(one + other).conflicts
    assert conflict.values == ("3", "5")
    assert conflict.scope == (("condition", "if emergency mode enabled"),)
    assert "(if emergency mode enabled)" in conflict_text(conflict)
    # both sides conditional with the condition after the value
    late = document("c.md", "The retry limit is 7 when emergency mode is on.")
    assert values(one + late) == [("3", "7")]


def test_a_value_under_a_condition_and_one_without_are_qualified_not_conflicting() -> None:
    conditional = document("a.md", "When emergency mode is activated, the retry limit is 3.")
    plain = document("b.md", "The retry limit is 5.")
    scan = scan_conflicts(conditional + plain)
    assert scan.conflicts == ()
    [qualified] = scan.qualified
    assert [side.value for side in qualified.sides] == ["3", "5"]
    # different conditions are different scopes too
    other = document("c.md", "When emergency mode is turned off, the retry limit is 5.")
    assert scan_conflicts(conditional + other).conflicts == ()


def test_options_listed_are_not_a_value_but_a_stated_value_still_conflicts() -> None:
    options = document("a.md", "The maintenance mode is on or off, as the operator chooses.")
    assert values(options + document("b.md", "The maintenance mode is off.")) == []
    stated = document("a.md", "The maintenance mode is on.")
    assert values(stated + document("b.md", "The maintenance mode is off.")) == [("on", "off")]


MANUAL = (
    "For more information, see the online guide for the device and its accessories. "
    "Transfer data from an old device From {}, tap Accounts and backup > Smart Switch."
)
RESET = (
    "The Model 7 router keeps its settings in flash memory. To reset the Model 7 router, "
    "hold the reset button for {} seconds until the lights blink."
)


def test_labels_in_instructions_of_two_sections_do_not_conflict() -> None:
    # two procedures share their boilerplate and differ in the label to tap
    passages = document("a.md", MANUAL.format("Apps")) + document("b.md", MANUAL.format("Settings"))
    assert values(passages) == []
    # the same words stated, not instructed, are an edited statement
    stated = "The data was moved from {} to the Smart Switch folder of the new device last week."
    edited = document("a.md", stated.format("Apps")) + document("b.md", stated.format("Settings"))
    assert values(edited) == [("Apps", "Settings")]


def test_figures_in_instructions_of_two_documents_still_conflict() -> None:
    passages = document("a.md", RESET.format(10)) + document("b.md", RESET.format(30))
    assert values(passages) == [("10", "30")]


def test_one_name_written_two_ways_is_no_conflict() -> None:
    text = (
        "The Galaxy S10 manual says the phone keeps its settings when {} is off, and the "
        "Samsung support page repeats this for every model."
    )
    spelled = document("a.md", text.format("Wi-Fi")) + document("b.md", text.format("WiFi"))
    assert values(spelled) == []
    renamed = document("a.md", text.format("Wi-Fi")) + document("b.md", text.format("Bluetooth"))
    assert values(renamed) == [("Wi-Fi", "Bluetooth")]
