"""A how-to answer quotes the options of a menu that the question asks about, not the menu."""

from __future__ import annotations

import msgspec
import pytest

from service.answer.composer import compose_answer
from service.answer.sentences import evidence_sentences
from service.pipeline.budgets import BUDGETS
from service.pipeline.context_pack import build_context_pack
from service.settings import AnswerSettings
from tests.unit.answer_fixtures import context, fragment, plan_for, rows

SOURCE = (
    "# App settings\n\n"
    "From Settings, tap Apps.\n\n"
    "Tap More options for the following options:\n\n"
    "Sort by: Sort the apps by size or name.\n\n"
    "Sorting applies to this list only.\n\n"
    "Default apps: Choose the apps used by default for email or browsing.\n\n"
    "Permission manager: Control which apps may use features of your device.\n\n"
    "Reset app preferences: Reset options that have been changed.\n\n"
    "Note: Existing app data is kept.\n"
)
MENU = ("Sort by:", "Default apps:", "Permission manager:", "Reset app preferences:")


def _answer(query: str, source: str = SOURCE) -> str:
    data = rows(source, "kb/apps.md", "d_apps")
    whole = msgspec.structs.replace(
        fragment(data[0]), end_offset=data[-1]["endOffset"],
        step_starts=(data[0]["startOffset"], data[1]["startOffset"]),
        text=source[data[0]["startOffset"] : data[-1]["endOffset"]],
    )  # fmt: skip
    pack = build_context_pack([whole], BUDGETS["base"], observed_ids=frozenset(whole.citation_ids))
    draft = compose_answer(
        plan_for(query), pack, evidence_sentences(pack, data), context(),
        settings=AnswerSettings(),
    )  # fmt: skip
    assert draft.profile == "how_to"
    return draft.text


def test_a_how_to_keeps_the_option_it_asks_about_and_every_step() -> None:
    """ "Reset app preferences" does not name "set"; "apps" names "app" in every option, so the
    option naming "default" too is the one asked about."""
    text = _answer("How do I set a default app?")
    assert "Default apps:" in text
    assert not any(option in text for option in MENU if option != "Default apps:")
    assert "Sorting applies" not in text  # an option's note goes with it
    steps = ("From Settings, tap Apps.", "Tap More options", "Existing app data is kept.")
    assert all(step in text for step in steps)
    assert text.index("From Settings") < text.index("Tap More") < text.index("Default apps:")


@pytest.mark.parametrize(
    "query",
    [
        "How do I open More options in app settings?",  # the opening step names it: the menu
        "How do I uninstall an app?",  # every option names "app" alike, none "uninstall"
    ],
)
def test_a_menu_no_option_of_which_is_asked_about_stays_whole(query: str) -> None:
    text = _answer(query)
    assert all(option in text for option in MENU)


def test_a_question_its_page_opens_with_asks_for_the_whole_menu() -> None:
    source = SOURCE.replace(
        "# App settings\n\n", "# App settings\n\nChange your app options here.\n\n"
    )
    text = _answer("How do I change my app options?", source)
    assert all(option in text for option in MENU)


def test_the_verb_of_a_clause_names_no_option_unless_a_label_does() -> None:
    """ "turn" of "turn on sort" is what to do with "Sort by"; "reset" names "Reset app
    preferences" by its label, though the page's opening names it too."""
    assert "Reset app" in _answer("How do I sort and reset apps?")
    source = SOURCE.replace("that have been changed", "you turned on")
    text = _answer("How do I turn on sort by?", source)
    assert "Sort by:" in text and "Reset app preferences:" not in text


def test_a_question_naming_two_options_keeps_both() -> None:
    text = _answer("How do I set the sort order and the permission manager?")
    assert "Sort by:" in text and "Permission manager:" in text
    assert "Default apps:" not in text and "Reset app preferences:" not in text


def test_a_short_word_names_an_option_only_as_itself() -> None:
    source = (
        "# Paper jams\n\nOpen the front cover.\n\nFind the code on the screen:\n\n"
        "E-101 Jam Tray 1: See page 99.\n\nE-102 Jam Tray 2: See page 100.\n\n"
        "E-103 Jam MP Tray: See page 101.\n"
    )
    text = _answer("How do I clear a jam in tray 2?", source)
    assert "Tray 2:" in text and "Tray 1:" not in text and "MP Tray:" not in text


def test_labelled_notes_and_lone_label_lines_are_no_menu() -> None:
    source = SOURCE.replace("Sort by: Sort the apps by size or name.", "Warning: Sort first.")
    text = _answer("How do I set a default app?", source)
    assert "Sort first." in text
    lone = "# Apps\n\nFrom Settings, tap Apps.\n\nTap Default.\n\nMode: Sets the view.\n"
    assert "Sets the view." in _answer("How do I set a default app?", lone)
    # A task's label and its first step: "Always-on VPN: Tap ..." is not an option to drop.
    tasks = SOURCE.replace("Sort the apps by size or name.", "Tap Sort and pick an order.")
    assert "Sort by: Tap Sort" in _answer("How do I set a default app?", tasks)


BLOCK = (
    "# Audio settings\n\n"
    "The Audio settings screen sets how music and calls sound on your Velantra unit. To open "
    "it, press HOME and touch Settings > Audio. The following options are displayed: "
    "Equalizer: Adjust bass, midrange and treble levels. Balance and fader: Shift the sound "
    "toward the left or right speakers. Speed volume: Raise the volume as vehicle speed "
    "increases. Navigation volume: Set the loudness of voice guidance. Surround mode: Spread "
    "the sound across all speakers.\n"
)
BLOCK_MENU = ("Equalizer:", "Balance and fader:", "Speed volume:", "Navigation volume:",
              "Surround mode:")  # fmt: skip


def _block_answer(query: str, settings: AnswerSettings | None = None) -> str:
    """A page laid out as one block of running text (as converted from a PDF), no procedure."""
    data = rows(BLOCK, "kb/audio.md", "d_audio")
    pack = build_context_pack(
        [fragment(row) for row in data], BUDGETS["base"],
        observed_ids=frozenset(c for row in data for c in fragment(row).citation_ids),
    )  # fmt: skip
    draft = compose_answer(plan_for(query), pack, evidence_sentences(pack, data), context(),
                           settings=settings or AnswerSettings())  # fmt: skip
    return draft.text


def test_a_menu_asked_about_as_a_whole_is_quoted_whole() -> None:
    """Its options name nothing of the question, so retrieval ranks none of them; the step
    that opens the menu brings it in (with_menus)."""
    text = _block_answer("How do I adjust the audio settings on my Velantra unit?")
    assert "Settings > Audio" in text
    assert all(option in text for option in BLOCK_MENU)
    positions = [text.index(option) for option in BLOCK_MENU]
    assert positions == sorted(positions)


def test_a_whole_menu_brought_in_still_gives_only_the_asked_option() -> None:
    text = _block_answer("How do I turn on speed volume in my Velantra car?")
    assert "Speed volume:" in text and "Settings > Audio" in text
    assert not any(option in text for option in BLOCK_MENU if option != "Speed volume:")


def test_a_menu_brings_in_at_most_its_bound_of_options() -> None:
    query = "How do I adjust the audio settings on my Velantra unit?"
    text = _block_answer(query, AnswerSettings(menu_options=2))
    assert "Balance and fader:" in text and "Navigation volume:" not in text


def test_a_generic_question_gets_the_option_it_names_or_the_whole_menu() -> None:
    """ "Where can I ...?" and "Which settings ...?" are no how-to questions; the menu they
    quote is still trimmed to the option asked about, or given whole."""
    text = _block_answer("Where can I turn on speed volume?")
    assert "Speed volume:" in text
    assert not any(option in text for option in BLOCK_MENU if option != "Speed volume:")
    text = _block_answer("Which settings can I change on my Velantra unit?")
    assert all(option in text for option in BLOCK_MENU)
