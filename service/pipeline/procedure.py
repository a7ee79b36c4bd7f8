"""weigh_procedures: the whole ordered procedure a how-to question's evidence belongs to.

Retrieval finds the sentences most like the question; in a procedure those are the first and the
last steps, rarely "Wait until the green light stops blinking". A how-to answer needs every step
in order, so augmentation reads the procedure as one block of the document:

- a list (numbered or bulleted), one item per step;
- a table whose header names a step (or whose first column counts them);
- "Step N" paragraphs;
- one heading per step ("Step 2: Remove the cover", "2. Remove the cover") under one parent;
- a run of prose paragraphs that sequence their steps ("First, ...", "Next, ...", "Finally, ...");
- instructions written as running text: a prose paragraph with two or more imperative
  sentences ("From Settings, tap Location. Tap the switch to turn it on.").

The region around the block keeps what the steps need: the section's paragraphs before it (the
prerequisites) and after it (warnings, notes), and a "Before you begin" section right before it.
Pure: rows of evidence/document_paragraphs in, a Procedure (paragraph rows and step offsets) out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

from service.text.relation_labels import compact_key
from service.text.spans import split_sentences

__all__ = [
    "STEP_HEADING", "Layout", "Procedure", "Weighed", "asked_tasks", "heading_task", "instructs",
    "opposite_task", "own_heading", "tasks_done", "weigh_procedures",
]  # fmt: skip

Layout = Literal[
    "numbered", "bulleted", "table", "step_paragraphs", "heading_per_step", "sequence",
    "instructions",
]  # fmt: skip
Row = Mapping[str, Any]

_ITEM = re.compile(r"^[ \t]{0,3}(?P<mark>[-*+]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
_STEP_PARAGRAPH = re.compile(r"^\W{0,4}step\s*(\d+)\b", re.IGNORECASE)
STEP_HEADING = re.compile(r"^(?:step\s*\d+\b|\d{1,2}[.)]\s)", re.IGNORECASE)
_SEQUENCE = re.compile(
    r"^\W{0,4}(?:first(?:ly)?|to (?:begin|start)|start by|begin by|second(?:ly)?|third(?:ly)?|"
    r"next|then|after (?:that|this)|afterwards|now|once|finally|lastly|last)\b",
    re.IGNORECASE,
)
_OPENS_SEQUENCE = re.compile(
    r"^\W{0,4}(?:first(?:ly)?|to (?:begin|start)|start by|begin by)\b", re.IGNORECASE
)
_BEFORE = re.compile(
    r"\b(?:before you (?:begin|start)|prerequisites?|requirements?|what you need|preparation|"
    r"you will need|getting ready)\b",
    re.IGNORECASE,
)
_TABLE_STEP = re.compile(r"^\s*\|?\s*(?:step|no\.?|#)\s*\|", re.IGNORECASE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
# An instruction: an imperative verb first, after an optional lead-in ("From Settings, tap ...",
# "To add a city, tap ...", "When finished, tap ...", "Then press ...").
_INSTRUCTION = re.compile(
    r"^\W{0,4}(?:(?:from|in|on|at|to|when|once|if|after|before|while|with|under|using)\b"
    r"[^.!?]{0,100}?,\s*)?(?:(?:first|next|then|now|finally|lastly|again),?\s+)?(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
# Verbs that open instructions; words as often nouns at a sentence start ("Lock screen",
# "Note", "Power saving") are left out.
_IMPERATIVE_VERBS = (
    "tap touch press hold swipe drag slide pinch select choose open close enter turn switch set "
    "add remove delete insert connect disconnect plug unplug follow wait release click go navigate "
    "scroll pull push lift place put rinse wash load unload tighten loosen check confirm verify "
    "restart reboot install uninstall download save move rename attach detach mount unmount clean "
    "wipe fill pour measure heat store keep make enable disable activate deactivate charge "
    "replace reset unlock fold align adjust rotate apply configure customize edit create send "
    "find repeat leave allow ensure start stop launch exit quit sync restore pair browse flip "
    "shake unscrew disassemble reassemble assemble hang wrap write reply accept decline tilt "
    "raise lower boot mute unmute hide expand collapse zoom crop resize upload import export"
)
_IMPERATIVE = frozenset(_IMPERATIVE_VERBS.split())
_MIN_INSTRUCTIONS = 2  # imperative sentences that make running text a procedure
# A heading that is only a preparation ("Before you begin", "Requirements"), not "Surface
# preparation" or "Requirements for installing the app".
_PREPARATION = re.compile(
    r"\s*(?:before you (?:begin|start)|prerequisites?|requirements|what you(?: will)? need|"
    r"you will need|preparation|getting ready)\W*$",
    re.IGNORECASE,
)
# A sentence of running text that names a task of its own ("To unlink contacts: From Contacts,
# tap ..."): the procedure before it ends there, and another begins (a comma makes it a
# lead-in, not a task: "To access the following features, tap More options:").
SUBTASK = re.compile(r"^\W{0,4}to\s+(?P<task>[^.!?:,]{2,80}):\s", re.IGNORECASE)
_CONTEXT_BEFORE = 2  # paragraphs of the section before the steps (prerequisites, intro)
_CONTEXT_AFTER = 3  # paragraphs of the section after them (warnings, notes, the result)
_OPTIONS_AFTER = 12  # paragraphs a closing "... the following options:" step keeps after it
_SENTENCE_ENDS = (".", "!", "?", ":")  # how a paragraph of whole sentences ends (_prose)
_INTRO_CHARS = 300  # of the introduction and the first block, read for the procedure's name


class Procedure(msgspec.Struct, frozen=True, kw_only=True):
    layout: Layout
    rows: tuple[Row, ...]  # contiguous paragraph rows in reading order: context and steps
    step_starts: tuple[int, ...]  # absolute source offset where each step begins
    heading_path: tuple[str, ...]  # the section that holds the steps
    score: float  # how well the procedure's section names the question's terms
    named: float  # the share of the question's terms its headings and introduction name
    # Absolute (start, end) offsets when the procedure is part of its paragraphs only (one of
    # the tasks of running text, _SUBTASK); None when it is the rows whole.
    span: tuple[int, int] | None = None


class _Block(msgspec.Struct, frozen=True):
    """One run of ordered steps found in a document, before it is scored."""

    layout: Layout
    rows: list[Row]
    starts: list[int]  # absolute offset of each step
    span: tuple[int, int] | None = None  # see Procedure.span
    task: str = ""  # the task a _SUBTASK sentence names, read as a heading of the steps


class Weighed(msgspec.Struct, frozen=True, kw_only=True):
    """One block the procedure search weighed, for the trace: whether it may answer, and why."""

    path: str  # its document
    heading_path: tuple[str, ...]
    layout: Layout
    steps: int
    named: float  # share of the question's terms its headings and introduction name
    hit_rank: int | None  # rank (0 = best) of the best hit among its paragraphs
    qualifies: bool
    reason: str  # the rule that lets it answer, or why none does
    # Among those that qualify, before a quarter point per place in the document ranking
    # (augment.py); None when it does not qualify.
    score: float | None = None
    given: bool = False  # the procedure given (of its document, until augmentation picks one)


def weigh_procedures(
    rows: Sequence[Row],
    hit_paragraphs: Sequence[str],
    terms: Sequence[str],
    *,
    asked: bool = False,
    query: str = "",
) -> tuple[Procedure | None, tuple[Weighed, ...]]:
    """The procedure of this document that the question names: among the blocks whose headings
    and introduction name at least half of `terms`, or a fifth of them while holding one of the
    three best hits (paragraph ids, best first), or laid-out steps holding two hits, one of them
    among the three best, the one that names most, a better hit inside or in its section
    breaking ties; None when there is none. `asked`: the question asks for steps
    and this is its best document, so a laid-out block (not running text) qualifies when it
    names a fifth of the terms or holds one of the three best hits. `query`: the question, for
    the task it names (_DOES). With it, every block found, weighed, the best one marked `given`
    (trace); running instructions under a preparation heading are no task and not weighed."""
    ordered = sorted(rows, key=lambda r: int(r["ordinal"]))
    wanted = asked_tasks(query)
    hits = set(hit_paragraphs)
    best: tuple[float, Procedure, int] | None = None  # score, procedure, index in `weighed`
    weighed: list[Weighed] = []
    for found_block in _blocks(ordered):
        layout, block, starts = found_block.layout, found_block.rows, found_block.starts
        if layout == "instructions" and _PREPARATION.match(" ".join(_path(block[0])[-1:])):
            continue  # what to do before you begin prepares a task; it is not one
        ids = {str(r["paragraphId"]) for r in block}
        sections = {_path(r) for r in block} | {_path(r)[:-1] for r in block if layout ==
                                                "heading_per_step"}  # fmt: skip
        hit_rank = next((i for i, p in enumerate(hit_paragraphs) if p in ids), None)
        near = any(_path(r) in sections for r in ordered if str(r["paragraphId"]) in
                   hit_paragraphs)  # fmt: skip
        named = round(_coverage(found_block, _rows_before(ordered, block), terms), _SHARE_DIGITS)
        # A list of safety notes beside the procedure is no procedure: a block qualifies when
        # its headings name the question, or when it holds the best hit itself.
        held = hit_rank is not None and hit_rank <= 2
        # Asked for steps, a laid-out procedure needs to name less of the question
        # ("taking the rotor out" / "Removing a rotor"); running text is a procedure only by
        # inference, so it must name as much as ever.
        laid_out = asked and layout != "instructions"
        some = named >= 0.2
        # A heading that does the asked task names the question as much as its words do
        # ("rotor installation steps" / "Installing a rotor" in another than the best document).
        fit = _task_fit(found_block, wanted)
        # Laid-out steps that hold two of the hits, one of the three best, are what retrieval
        # found, in whatever words the question used ("install the latest NetHaven software
        # from the web page" / "Updating firmware through the web interface"); running text is
        # a procedure only by inference.
        found_steps = layout != "instructions" and held and len(ids & hits) >= 2
        reason = _qualifying_rule(half=named >= 0.5, fifth=some, held=held, does_task=fit > 0,
                                  laid_out=laid_out, found_steps=found_steps)  # fmt: skip
        unqualified = _NAMES_LITTLE if some else _NAMES_TOO_LITTLE
        seen = Weighed(path=str(block[0]["path"]), heading_path=_path(block[0]), layout=layout,
                       steps=len(starts), named=round(named, 3), hit_rank=hit_rank,
                       qualifies=reason is not None, reason=reason or unqualified)  # fmt: skip
        if reason is None:
            weighed.append(seen)
            continue
        # What the procedure's headings name decides; a hit inside it breaks ties.
        score = 2 * named + (0.5 / (1 + hit_rank) if hit_rank is not None else 0.0) + 0.25 * near
        # The asked verb opening its name ranks a block that qualifies (in this document and
        # against other documents' procedures), but lets none qualify.
        score += fit or _verb_fit(found_block, terms)
        # Running text holds its own introduction and notes around its instructions.
        region, span = (_introduced(ordered, found_block) if layout == "instructions"
                        else (_region(ordered, block, layout), None))  # fmt: skip
        found = Procedure(layout=layout, rows=tuple(region), step_starts=tuple(starts),
                          heading_path=_path(block[0]), score=round(score, 3),
                          named=round(named, 3), span=span)  # fmt: skip
        weighed.append(msgspec.structs.replace(seen, score=round(score, 3)))
        if best is None or score > best[0]:
            best = (score, found, len(weighed) - 1)
    if best is None:
        return None, tuple(weighed)
    weighed[best[2]] = msgspec.structs.replace(weighed[best[2]], given=True)
    return best[1], tuple(weighed)


# Why a block may not answer (a block naming a fifth that holds a best hit qualifies).
_NAMES_TOO_LITTLE = "names under a fifth of the question"
_NAMES_LITTLE = "names under half of the question and holds none of the three best hits"


def _qualifying_rule(
    *, half: bool, fifth: bool, held: bool, does_task: bool, laid_out: bool, found_steps: bool
) -> str | None:
    """The first rule of weigh_procedures that lets a block answer, in words; None if none."""
    rules = (
        (half, "names half of the question"),
        (held and fifth, "names a fifth and holds one of the three best hits"),
        (does_task and fifth, "names a fifth and its heading does the asked task"),
        (laid_out and (held or fifth), "laid out in the best document, asked for steps"),
        (found_steps, "its laid-out steps hold two hits, one of the three best"),
    )
    return next((words for applies, words in rules if applies), None)


# Two tasks that undo each other, by the verbs (or verb and particle) that name them: "taking
# the rotor out" asks for "Removing a rotor", not for "Installing a rotor" beside it under
# "Installing and Removing Rotors", whose words name both.
_DOES = {
    "remove": re.compile(
        r"\b(?:remov\w*|uninstall\w*|detach\w*|unmount\w*|(?:take|taking|took|get|getting|got|"
        r"pull|pulling|lift|lifting)\s+(?:(?!most\b)[\w-]+\s+){0,4}?(?:out|off)\b)",
        re.IGNORECASE,
    ),
    "install": re.compile(
        r"\b(?:(?:re-?)?install(?!ers?\b)\w*|insert(?:s|ed|ing)?\b|mount(?:s|ed|ing)?\b|"
        r"add(?:s|ing)?\b(?!-)|"
        r"(?:put|putting|fit|fitting)\s+(?:[\w-]+\s+){0,4}?(?:in|on|into|onto|back)\b"
        r"(?!\s+(?:[\w-]+\s+){0,2}?mode\b))",
        re.IGNORECASE,
    ),
}
_UNDOES = {"remove": "install", "install": "remove"}
# A question word that opens a clause ("..., how should I lubricate the cone"); not a relative
# "which" ("take the rotor out, which is stuck").
_QUESTION_WORD = re.compile(r"(?:^|[,;?.]\s*)(?:how|what)\b", re.IGNORECASE)
# A share of the terms is compared rounded: 0.3 * 2 / 3 (two of three terms in the
# introduction) is under 0.2 in binary floating point, and must name a fifth.
_SHARE_DIGITS = 9
_TASK_WEIGHT = 0.5  # a whole heading term's worth of score (2 * named, named per term)


def _task_fit(block: _Block, wanted: set[str]) -> float:
    """+_TASK_WEIGHT when the block's own heading (or its task) does the one task the question
    names and not its opposite, -_TASK_WEIGHT when it does only the opposite; 0 when the
    question names both or neither."""
    if len(wanted) != 1:
        return 0.0
    [task] = wanted
    done = tasks_done(_name(block))
    if done == {task}:
        return _TASK_WEIGHT
    if done == {opposite_task(task)}:
        return -_TASK_WEIGHT
    return 0.0


def _verb_fit(block: _Block, terms: Sequence[str]) -> float:
    """+_TASK_WEIGHT when the block's name opens with the question's first term as a verb
    ("Balancing a load", "To balance the load:" for "how do I balance the centrifuge rotor?",
    where "Installing a rotor" beside it names the rotor as much); not a noun that only starts
    like it ("Lightning protection" for "light")."""
    opening = _VERB_OPENING.match(_name(block))
    if opening is None or not terms:
        return 0.0
    infinitive, gerund = opening.group("infinitive"), opening.group("gerund")
    forms = {infinitive.lower()} if infinitive else _verb_forms(gerund.lower())
    return _TASK_WEIGHT if terms[0] in forms else 0.0


def _name(block: _Block) -> str:
    """What a block does, by its own words: its task ("To remove the filter:"), else its own
    heading."""
    return block.task or own_heading(_path(block.rows[0]))


def own_heading(path: Sequence[str]) -> str:
    """A procedure's own heading: the last of its heading path that is not a step's."""
    return next((h for h in reversed(path) if not STEP_HEADING.match(h)), "")


def _verb_forms(gerund: str) -> set[str]:
    """A gerund and the verbs it can come from: "balancing" balance, "setting" set, "using"
    use, "flashing" flash."""
    stem = gerund[:-3]
    forms = {gerund, stem, stem + "e"}
    if len(stem) > 2 and stem[-1] == stem[-2]:
        forms.add(stem[:-1])
    return forms


# A name that opens with a verb: "To balance ...", "How to balance ...", "Balancing ..." (an
# -ing word of five letters or more: "Ring settings" opens with none).
_VERB_OPENING = re.compile(
    r"\s*(?:(?:how\s+)?to\s+(?P<infinitive>[a-z]+)\b|(?P<gerund>[a-z]{2,}ing)\b)", re.IGNORECASE
)


def asked_tasks(query: str) -> set[str]:
    """The tasks of _DOES the question asks to do, read in the clause of its last question
    word: "the rotor was hard to remove, how should I lubricate the cone" asks for no
    removal."""
    return tasks_done(_QUESTION_WORD.split(query)[-1])


def tasks_done(text: str) -> set[str]:
    """The tasks of _DOES a heading, a task or a clause names."""
    return {task for task, verbs in _DOES.items() if verbs.search(text)}


def heading_task(heading: str) -> set[str]:
    """The task of _DOES a heading or a "To ...:" task opens with: its first word (after "To"
    or "How to") a verb followed by an article or a possessive ("Adding a satellite node",
    "remove the filter"); none for a noun phrase ("Mounting bracket", "Removable battery")."""
    opening = _OPENING.match(heading)
    return tasks_done(opening.group("verb")) if opening else set()


_OPENING = re.compile(
    r"\s*(?:how\s+to\s+|to\s+)?(?P<verb>\w+)\s+(?:the|a|an|your|its|this|that|each|all|any|"
    r"one|new|old)\b",
    re.IGNORECASE,
)


def opposite_task(task: str) -> str:
    """The task that undoes `task` (remove <-> install)."""
    return _UNDOES[task]


def _blocks(rows: Sequence[Row]) -> list[_Block]:
    """Every run of ordered steps in the document."""
    blocks: list[_Block] = []
    for row in rows:
        text, kind, start = str(row["text"]), str(row["kind"]), int(row["startOffset"])
        if kind == "list":
            items = list(_ITEM.finditer(text))
            if len(items) >= 2:
                layout: Layout = "numbered" if items[0].group("mark")[0].isdigit() else "bulleted"
                blocks.append(_Block(layout, [row], [start + m.start() for m in items]))
        elif kind == "table":
            lines = text.split("\n")
            # A first column counting 1, 2, 3, ... (not "1 to 5", "6 to 12" of a settings table)
            firsts = [re.match(r"^\s*\|?\s*(\d{1,3})\s*\|", line) for line in lines[2:]
                      if line.strip()]  # fmt: skip
            numbered = len(firsts) > 1 and all(
                m is not None and int(m.group(1)) == i for i, m in enumerate(firsts, start=1)
            )
            if (
                len(lines) > 3
                and _TABLE_RULE.match(lines[1])
                and (_TABLE_STEP.match(lines[0]) or numbered)
            ):
                offsets = [sum(len(x) + 1 for x in lines[:i]) for i in range(2, len(lines))]
                blocks.append(_Block("table", [row], [start + o for o in offsets]))
    blocks += _runs(rows, "step_paragraphs", lambda r: bool(_STEP_PARAGRAPH.match(str(r["text"]))))
    blocks += _heading_steps(rows)
    blocks += [
        b for b in _runs(rows, "sequence", lambda r: bool(_SEQUENCE.match(str(r["text"]))))
        if len(b.rows) >= 3 and _OPENS_SEQUENCE.match(str(b.rows[0]["text"]))
    ]  # fmt: skip
    # Running text is a procedure only in a section where no other layout found one: the
    # introduction of a table or of "First, ... Next, ..." paragraphs is not a rival to it.
    laid_out = {_path(r)[:depth] for b in blocks for r in b.rows
                for depth in (len(_path(r)), len(_path(r)) - 1)}  # fmt: skip
    blocks += [
        task for run in _instruction_runs(rows) if _path(run.rows[-1]) not in laid_out
        for task in _tasks(msgspec.structs.replace(run, rows=_with_options(rows, run.rows)))
    ]  # fmt: skip
    return blocks


def _tasks(run: _Block) -> list[_Block]:
    """Running text split where a sentence names a task of its own (SUBTASK): each task with
    `_MIN_INSTRUCTIONS` steps is a procedure, from its "To ...:" sentence to the end of its last
    sentence, named by that sentence's task (the first one by its opening sentence). Steps
    before the first such sentence too few to be a procedure of their own join the first task;
    a later task of one step is none, but still ends the task before it."""
    sentences = [(int(row["startOffset"]) + s.start, int(row["startOffset"]) + s.end, s.text)
                 for row in run.rows for s in split_sentences(str(row["text"]))]  # fmt: skip
    cuts = [(lo, m.group("task")) for lo, _, text in sentences
            if lo in run.starts and (m := SUBTASK.match(text))]  # fmt: skip
    while cuts and _joins_first_task(run, cuts[0][0]):
        cuts = cuts[1:]  # "Open Contacts. To link: ..." keeps its first step
    if not cuts:
        return [run]
    first = (sentences[0][0], sentences[0][2]) if sentences else (cuts[0][0], "")
    bounds = [first, *cuts, (int(run.rows[-1]["endOffset"]), "")]
    tasks = []
    for (lo, task), (next_lo, _) in itertools.pairwise(bounds):
        starts = [s for s in run.starts if lo <= s < next_lo]
        # The last task runs to its rows' end (options after it included); the others end with
        # their last sentence, not the space before the next task's.
        hi = next_lo if next_lo == bounds[-1][0] else max(
            e for b, e, _ in sentences if lo <= b < next_lo)  # fmt: skip
        rows = [r for r in run.rows if int(r["startOffset"]) < hi and int(r["endOffset"]) > lo]
        if len(starts) >= _MIN_INSTRUCTIONS:
            tasks.append(_Block("instructions", rows, starts, span=(lo, hi), task=task))
    return tasks


def _joins_first_task(run: _Block, cut: int) -> bool:
    """The steps before the first named task are too few to stand alone and share its
    paragraph ("Open Contacts. To link contacts: ..."): they are its first steps. One step in
    a paragraph of its own ("Mount the sensor on the north wall.") is another task."""
    before = [s for s in run.starts if s < cut]
    row = next(r for r in run.rows if int(r["startOffset"]) <= cut < int(r["endOffset"]))
    return len(before) < _MIN_INSTRUCTIONS and all(s >= int(row["startOffset"]) for s in before)


def _with_options(rows: Sequence[Row], block: list[Row]) -> list[Row]:
    """Running text whose last instruction introduces what follows ("tap Edit for the following
    options:") keeps the paragraphs of its section after it (up to `_OPTIONS_AFTER`): the options
    are part of that step, however little they resemble the question."""
    if not str(block[-1]["text"]).rstrip().endswith(":"):
        return block
    at = next(i for i, r in enumerate(rows) if r["paragraphId"] == block[-1]["paragraphId"])
    after = []
    for row in rows[at + 1 : at + 1 + _OPTIONS_AFTER]:
        if _path(row) != _path(block[-1]) or str(row["kind"]) not in ("paragraph", "list"):
            break
        after.append(row)
    return [*block, *after]


def _instruction_runs(rows: Sequence[Row]) -> list[_Block]:
    """Adjacent prose paragraphs of one section that hold instructions, each instruction
    sentence a step, when they are at least `_MIN_INSTRUCTIONS`; the paragraph right before
    the run, in its section, introduces it."""
    runs: list[_Block] = []
    current: list[Row] = []
    starts: list[int] = []
    before: Row | None = None

    def close() -> None:
        if len(starts) >= _MIN_INSTRUCTIONS:
            intro = [before] if before is not None and _path(before) == _path(current[0]) else []
            runs.append(_Block("instructions", [*intro, *current], list(starts)))

    for row in rows:
        found = (
            [int(row["startOffset"]) + s.start for s in split_sentences(str(row["text"]))
             if instructs(s.text)]
            if str(row["kind"]) == "paragraph" else []
        )  # fmt: skip
        if current and (not found or _path(row) != _path(current[0])):
            close()
            current, starts = [], []
        if found:
            current.append(row)
            starts += found
        else:
            before = row
    if current:
        close()
    return runs


def instructs(sentence: str) -> bool:
    """An instruction: an imperative verb first, after an optional lead-in or a task."""
    task = SUBTASK.match(sentence)  # "To unlink contacts: Tap the contact." instructs
    match = _INSTRUCTION.match(sentence[task.end() :] if task else sentence)
    if match is None:
        return False
    verb = match.group("verb")
    return verb.lower() in _IMPERATIVE and (verb[0].isupper() or match.start("verb") > 0)


def _runs(rows: Sequence[Row], layout: Layout, is_step: Any) -> list[_Block]:
    """Runs of 2+ prose paragraphs that are steps, adjacent in one section (a short paragraph
    between two steps, a warning, stays inside the run)."""
    runs: list[_Block] = []
    current: list[Row] = []
    gap: list[Row] = []
    for row in rows:
        prose = str(row["kind"]) == "paragraph"
        same = not current or _path(row) == _path(current[0])
        if prose and is_step(row) and same:
            current += [*gap, row]
            gap = []
        elif current and same and prose and not gap:
            gap = [row]  # one non-step paragraph may sit between two steps
        else:
            if len([r for r in current if is_step(r)]) >= 2:
                steps = [int(r["startOffset"]) for r in current if is_step(r)]
                runs.append(_Block(layout, current, steps))
            current = [row] if prose and is_step(row) else []
            gap = []
    if len([r for r in current if is_step(r)]) >= 2:
        runs.append(_Block(layout, current, [int(r["startOffset"]) for r in current if is_step(r)]))
    return runs


def _heading_steps(rows: Sequence[Row]) -> list[_Block]:
    """Sibling headings that each name one step, with the paragraphs under them."""
    groups: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        path = _path(row)
        if path and STEP_HEADING.match(path[-1]):
            groups.setdefault(path[:-1], []).append(row)
    blocks: list[_Block] = []
    for group in groups.values():
        headings = list(dict.fromkeys(_path(r)[-1] for r in group))
        if len(headings) < 2:
            continue
        first: dict[str, int] = {}
        for row in group:
            first.setdefault(_path(row)[-1], int(row["startOffset"]))
        blocks.append(_Block("heading_per_step", group, [first[h] for h in headings]))
    return blocks


def _region(rows: Sequence[Row], block: Sequence[Row], layout: Layout) -> list[Row]:
    """The block and its context, contiguous in reading order: the section's paragraphs before
    the steps (and a "Before you begin" section right before it) and after them."""
    position = {str(r["paragraphId"]): i for i, r in enumerate(rows)}
    first, last = position[str(block[0]["paragraphId"])], position[str(block[-1]["paragraphId"])]
    section = _path(block[0])[:-1] if layout == "heading_per_step" else _path(block[0])
    lo = first
    while lo > 0 and first - lo < _CONTEXT_BEFORE and _within(rows[lo - 1], section):
        lo -= 1
    if lo > 0 and _BEFORE.search(" ".join(_path(rows[lo - 1])[-1:])):
        heading = _path(rows[lo - 1])
        while lo > 0 and _path(rows[lo - 1]) == heading:
            lo -= 1
    hi = last
    while (
        hi + 1 < len(rows)
        and hi - last < _CONTEXT_AFTER
        and _path(rows[hi + 1]) == (_path(block[-1]))
    ):
        hi += 1
    return [r for r in rows[lo : hi + 1] if str(r["kind"]) != "mermaid"]


def _introduced(rows: Sequence[Row], block: _Block) -> tuple[list[Row], tuple[int, int] | None]:
    """Running instructions (rows and span) with the paragraphs of their section right before
    them, up to `_CONTEXT_BEFORE` with the one their run holds, as a laid-out block's region:
    the same section with a blank line after each sentence answers as it does in one
    paragraph. Only what the block was weighed by names it; these only introduce it. A task
    that opens inside its paragraph ("... To unlink contacts: ...") keeps its own span."""
    first = block.rows[0]
    lo = int(first["startOffset"])
    if block.span is not None and block.span[0] > lo:
        return block.rows, block.span
    # the run's own introduction: a first paragraph that holds no step
    held = 0 if any(lo <= s < int(first["endOffset"]) for s in block.starts) else 1
    if held and not _prose(first):
        return block.rows, block.span  # a title line ("Turning on Dark mode") opens the task
    at = next(i for i, r in enumerate(rows) if r["paragraphId"] == first["paragraphId"])
    before: list[Row] = []
    while (at - len(before) > 0 and len(before) + held < _CONTEXT_BEFORE
           and _within(row := rows[at - len(before) - 1], _path(first)) and _prose(row)
           and not any(instructs(s.text) for s in split_sentences(str(row["text"])))):  # fmt: skip
        before.insert(0, row)
    if not before:
        return block.rows, block.span
    span = None if block.span is None else (int(before[0]["startOffset"]), block.span[1])
    return [*before, *block.rows], span


def _prose(row: Row) -> bool:
    """Whole sentences: not a title line ("TalkBack") nor the tail of a sentence a page break
    cut ("normal colours.")."""
    text = str(row["text"]).strip()
    return text[:1].isupper() and text.endswith(_SENTENCE_ENDS)


def _within(row: Row, section: tuple[str, ...]) -> bool:
    return _path(row) == section and str(row["kind"]) in ("paragraph", "list", "quote")


def _rows_before(rows: Sequence[Row], block: Sequence[Row]) -> list[Row]:
    """The paragraph right before the block (its introduction), if any."""
    ids = [str(r["paragraphId"]) for r in rows]
    at = ids.index(str(block[0]["paragraphId"]))
    return [rows[at - 1]] if at > 0 else []


def _coverage(block: _Block, before: Sequence[Row], terms: Sequence[str]) -> float:
    """How well the block's own headings (weight 0.7) and its introduction and first lines (0.3)
    name the question's terms; a word one typing slip away counts ("brurs" names "burrs"). A
    task of running text is also named by its task and read within its span only, word by word:
    "To unlink contacts:" does not name "link"."""
    if not terms:
        return 0.0
    titles = list(_path(block.rows[0]))
    if len(titles) > 1 and STEP_HEADING.match(titles[-1]):
        titles = titles[:-1]  # a step heading names the step, not the procedure
    if block.span is None:
        lines = " ".join(str(r["text"])[:_INTRO_CHARS] for r in (*before, block.rows[0]))
        return 0.7 * _named(" ".join(titles), terms) + 0.3 * _named(lines, terms)
    first = block.rows[0]
    at = max(block.span[0] - int(first["startOffset"]), 0)
    lines = str(first["text"])[
        at : min(at + _INTRO_CHARS, block.span[1] - int(first["startOffset"]))
    ]
    headings, task, text = _words_of(" ".join(titles)), _words_of(block.task), _words_of(lines)
    named = [t for t in terms if _names(t, *headings) or any(_close(t, w) for w in task[0])]
    said = [t for t in terms if any(_close(t, w) for w in text[0])]
    return 0.7 * len(named) / len(terms) + 0.3 * len(said) / len(terms)


def _named(text: str, terms: Sequence[str]) -> float:
    """The share of `terms` the text names."""
    words, compact = _words_of(text)
    return sum(1 for t in terms if _names(t, words, compact)) / len(terms)


# Particles that make one word of a verb ("set up" / "setup", "backing up" / "backup",
# "log in" / "login", "shut down" / "shutdown").
_PARTICLES = frozenset(["up", "down", "in", "out", "off", "on", "over"])


def _words_of(text: str) -> tuple[frozenset[str], str]:
    """A text's words, with the one-word forms of its verb-particle pairs, and its compact key."""
    words = re.findall(r"\w+", text.lower())
    pairs = {f"{_stem(a)}{b}" for a, b in itertools.pairwise(words) if b in _PARTICLES}
    return frozenset(words) | pairs, compact_key(text)


def _stem(word: str) -> str:
    """A verb without -ing, -ed or -s, and without the consonant doubled before them
    ("setting" -> "set", "logged" -> "log", "backs" -> "back")."""
    for suffix in ("ing", "ed", "s"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 2:
            return base[:-1] if len(base) >= 3 and base[-1] == base[-2] else base
    return word


def _names(term: str, words: frozenset[str], compact: str) -> bool:
    return any(_close(term, w) for w in words) or (len(term) > 3 and compact_key(term) in compact)


def _close(term: str, word: str) -> bool:
    """Same word, an inflection of it, or one slip apart (a letter dropped, added, changed or
    two swapped) for words of five letters or more, also before an inflection ("decsale" is
    one slip from the "descal" of "descaling")."""
    shared = next((i for i, (a, b) in enumerate(zip(term, word, strict=False)) if a != b),
                  min(len(term), len(word)))  # fmt: skip
    if shared >= 5 and shared >= min(len(term), len(word)) - 3:
        return True  # one stem: "descale" / "descaling", "removal" / "removing"
    if term == word or (len(term) > 3 and (word.startswith(term) or (term.startswith(word)
                                           and len(word) > 3))):  # fmt: skip
        return True
    if len(term) >= 6 and len(word) > len(term) and _slip(term[:-1], word[: len(term) - 1]):
        return True
    return _slip(term, word)


def _slip(term: str, word: str) -> bool:
    """One letter dropped, added or changed, or two neighbours swapped (five letters or more)."""
    if min(len(term), len(word)) < 5 or abs(len(term) - len(word)) > 1:
        return False
    if len(term) == len(word):
        diff = [i for i in range(len(term)) if term[i] != word[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1
            and term[diff[0]] == word[diff[1]] and term[diff[1]] == word[diff[0]]
        )  # fmt: skip
    short, long = (term, word) if len(term) < len(word) else (word, term)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _path(row: Row) -> tuple[str, ...]:
    return tuple(row["headingPath"] or ())
