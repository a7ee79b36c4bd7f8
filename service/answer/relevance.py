"""off_question: the sentences of a draft that are not about the question, one by one.

A page is data, and an instruction planted in it (in any language, addressed to any assistant)
is only relayed when the answer quotes it. Word lists of such instructions exist for a few
languages only, so this screen asks instead whether each sentence belongs in the answer at all:

- it is written in the question's language or its page's, and so is each of its labelled parts
  (a table row's cells): a Dutch sentence in an English manual is not quoted for an English
  question;
- it is about the question: it names one of the question's content words, or it holds a value
  of the type the question asks for, or (in English and Chinese, which the instruction screen of
  service/answer/injection/ reads) it links such sentences within two of them in one
  paragraph, or leads in to the one right after it on the page (a colon's lead-in or an
  English instruction: the menu path to the option asked about). The steps of a procedure are
  exempt, since a step that does not resemble the question is still a step; but a step in
  another language must share a word with the rest of its procedure;
- a link is published only in a sentence that names at least half of the question (or a step
  of the procedure asked for), and never with a query built from placeholders or secrets
  (`?k={api_key}`, `?q=<conversation>`).

Each offending sentence gets a reason; release takes it out (docs/evidence.md, "Release review").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from service.answer.composer import DraftSentence
from service.answer.options import MENU_SLOT, is_option
from service.answer.sufficiency.terms import has_term, stems
from service.pipeline.plan import QueryPlan
from service.pipeline.procedure import instructs
from service.text.answer_types import holds_instance
from service.text.language import foreign_to, function_word, language_of
from service.text.relation_labels import compact_key
from service.text.tokens import spaced_words

__all__ = ["off_question", "relevant"]

# Slots that hold a procedure's parts: they are in the answer because the procedure is.
_PROCEDURE_SLOTS = frozenset(("procedure", "step", "prerequisite", "check", "failure", "overview"))
_LINK = re.compile(
    r"(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|ai|co|info|biz|xyz|ru|cn)"
    r"(?:/\S*)?",
    re.IGNORECASE,
)
# A query or path built from something the page cannot know: placeholders, template markers,
# or names of secrets and of the conversation.
_BUILT_QUERY = re.compile(
    r"[{}<>\[\]$%]|\b(?:key|token|secret|password|passwd|api|apikey|session|cookie|prompt|"
    r"conversation|history|chat|question|query|user|email|env)\w*=",
    re.IGNORECASE,
)


def relevant(text: str, plan: QueryPlan) -> bool:
    """Names a content word of the question (a Han or katakana term by any two such characters
    in a row of it; "de", "la", "het" and other function words do not count), or holds a value
    of the asked type."""
    if plan.answer_type is not None and holds_instance(text, plan.answer_type, wide=False):
        return True
    return any(_names(text, t) for t in plan.terms if not function_word(t))


def _names(text: str, term: str) -> bool:
    """The text names the term: by stem or compact form (Latin script), as a word (other
    scripts), or by two Han or katakana characters of it in a row."""
    if term.isascii():
        return has_term(text, term, stems(text)) or (
            len(term) > 3 and compact_key(term) in compact_key(text)
        )
    if " " not in term and term in spaced_words(text):
        return True
    return any(
        run[i : i + 2] in text for run in _IDEOGRAPHS.findall(term) for i in range(len(run) - 1)
    )


# Han and katakana runs carry the content of Chinese and Japanese text; hiragana is grammar.
_IDEOGRAPHS = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\u30a0-\u30ff]{2,}")


def _linking(index: int, sentences: Sequence[DraftSentence], on_point: Sequence[bool]) -> bool:
    """A sentence of a passage that links on-point sentences of its own paragraph ("It sets in
    an hour."), in a language the instruction screen reads (service/answer/injection/); in any
    other language a sentence must name the question itself."""
    if language_of(sentences[index].text) not in _SCREENED:
        return False
    paragraph = {e.paragraph_id for e in sentences[index].evidence}
    near = range(max(0, index - _LINK_REACH), min(len(sentences), index + _LINK_REACH + 1))
    return any(
        on_point[i] and i != index and {e.paragraph_id for e in sentences[i].evidence} & paragraph
        for i in near
    )


_SCREENED = frozenset(("en", "zh", "und"))
_LINK_REACH = 2  # sentences either side


def off_question(
    sentences: Sequence[DraftSentence], plan: QueryPlan, pages: Mapping[str, str]
) -> dict[int, str]:
    """Position -> reason for every sentence that does not belong in the answer; `pages`:
    document id -> the text the pack shows of it (its language is the page's)."""
    found: dict[int, str] = {}
    on_point = [relevant(s.text, plan) or not plan.terms for s in sentences]
    procedure = [s.text for s in sentences if s.slot in _PROCEDURE_SLOTS]
    leads: list[int] = []  # kept only as lead-ins (_leads_in)
    for index, sentence in enumerate(sentences):
        if sentence.kind not in ("evidence", "generated"):
            continue
        page = next((pages.get(e.document_id, "") for e in sentence.evidence), "")
        step = sentence.slot in _PROCEDURE_SLOTS
        # a menu the answer quotes whole is asked about as a whole (options.with_menus)
        menu = sentence.slot == MENU_SLOT
        about = on_point[index] or menu or _linking(index, sentences, on_point)
        if not about and not step and _leads_in(index, sentences, on_point):
            about = True
            leads.append(index)
        links = _LINK.findall(sentence.text)
        if any(foreign_to(part, plan.query, page) for part in _parts(sentence.text)):
            found[index] = "foreign_language"
        elif any(_BUILT_QUERY.search(link.split("?", 1)[-1] if "?" in link else "")
                 or re.search(r"[{}<>$]", link) for link in links):  # fmt: skip
            found[index] = "link_with_built_query"
        elif links and not step and _coverage(sentence.text, plan) < _LINK_COVERAGE:
            found[index] = "link_off_question"
        elif (
            step
            and language_of(sentence.text) not in _SCREENED
            and not _shares_words(sentence.text, [t for t in procedure if t != sentence.text], plan)
        ):
            found[index] = "off_procedure"
        elif not about and not step:
            found[index] = "off_question"
    # A lead-in stays only with the sentence it leads in to.
    for index in leads:
        if index + 1 in found:
            found.setdefault(index, "off_question")
    return found


def _leads_in(index: int, sentences: Sequence[DraftSentence], on_point: Sequence[bool]) -> bool:
    """The menu path to an option names nothing of the question ("From Settings, tap Display >
    Blue light filter, and then choose one of the following options:" before "Drag the Opacity
    slider ..."): a sentence that ends with a colon (in English or Chinese; a short sentence in
    another language reads as undetermined) or an English instruction leads in to the on-point
    sentence after it when that one follows it on the page, in the same section and at most one
    blank line below; a colon's also to an option further down its menu."""
    after = index + 1
    if after >= len(sentences) or not on_point[after]:
        return False
    lead, point = sentences[index], sentences[after]
    if not lead.evidence or not point.evidence:
        return False
    text = lead.text.rstrip()
    language = language_of(text)
    # An instruction needs an English verb first (instructs); a colon needs a known language.
    if not (
        (language in ("en", "zh") and text.endswith((":", "："))) or
        (language in ("en", "und") and instructs(text))
    ):  # fmt: skip
        return False
    last, first = lead.evidence[-1], point.evidence[0]
    gap = first.line - last.end_line
    return (
        last.document_id == first.document_id
        and last.heading_path == first.heading_path
        and gap >= 0
        # A menu's colon leads in to an option further down it too: the answer quotes only the
        # options asked about (service/answer/options.py).
        and (gap <= _LEAD_IN_LINES or (text.endswith((":", "：")) and is_option(first)))
    )


def _parts(text: str) -> list[str]:
    """The sentence and, for one made of labelled parts (a table row's cells "Header: value;
    ..."), each part of at least five words: a cell in another language is one too."""
    parts = [p for p in re.split(r"\s*(?:;|:|\s[—–-]\s)\s*", text)
             if len(p.split()) >= _PART_WORDS]  # fmt: skip
    return [text, *(p for p in parts if p != text)]


def _coverage(text: str, plan: QueryPlan) -> float:
    """Share of the question's content words (function words left out) the text names; a
    value of the asked type counts as all of them."""
    if plan.answer_type is not None and holds_instance(text, plan.answer_type, wide=False):
        return 1.0
    terms = [t for t in plan.terms if not function_word(t)]
    return sum(1 for t in terms if _names(text, t)) / len(terms) if terms else 1.0


def _shares_words(text: str, others: Sequence[str], plan: QueryPlan) -> bool:
    """A step of a procedure in another language than English or Chinese names a content word
    (four letters or more, not a function word) of another step, of its headings or of the
    question: an instruction slipped into the list speaks of something else."""
    own = {w for w in re.findall(r"\w{4,}", text.lower()) if not function_word(w)}
    context = set(re.findall(r"\w{4,}", " ".join((*others, plan.query)).lower()))
    return bool(own & context)


_PART_WORDS = 5  # a labelled part this long has a language of its own
_LEAD_IN_LINES = 2  # a lead-in's last line to its sentence's first: the next line or paragraph
_LINK_COVERAGE = 0.5  # of the question's content words, for a sentence that carries a link
