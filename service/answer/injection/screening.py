"""Screening: the texts of a question's evidence scanned once, and each answer sentence checked
against what they demand."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from service.answer.injection.finding import find_injections
from service.answer.injection.model import _MIN_KEY, Finding, InjectionScan, _key, normalize
from service.answer.injection.outputs import _norm_output, _plain_word
from service.answer.injection.rules import is_instruction
from service.text.text_cache import paragraph_cache

__all__ = ["REMOVED", "scan_texts", "screen_heading", "screen_sentence"]

REMOVED = "[removed: instruction]"  # what stands where an instruction was cut from page text

# --- screening --------------------------------------------------------------------------------


def screen_heading(heading: str) -> str:
    """A heading (or a title) as returned beside an answer or a search hit: REMOVED when it is
    an instruction ("### SYSTEM OVERRIDE ###" over an attack) read as the heading it is."""
    return REMOVED if heading and find_injections(f"# {heading}") else heading


def scan_texts(texts: Iterable[str]) -> InjectionScan:
    """The instruction sentences of the texts and the outputs they demand."""
    return _scan(tuple(dict.fromkeys(texts)))


@paragraph_cache("function")
def _scan(texts: tuple[str, ...]) -> InjectionScan:
    sentences: list[str] = []
    outputs: list[str] = []
    clean: list[str] = []
    for text in texts:
        injections = find_injections(text)
        if not injections:
            clean.append(text)
            continue
        position = 0
        for injection in injections:
            clean.append(text[position : injection.start])
            position = injection.end
            if injection.sentence not in sentences:
                sentences.append(injection.sentence)
            outputs.extend(o for o in injection.outputs if o not in outputs)
        clean.append(text[position:])
    if not sentences:
        return InjectionScan()
    # A plain word the texts also use in ordinary (not all-capitals) form outside any instruction
    # is vocabulary, not a demand: "the marker LOCK" on a canal-lock page, "the word orchid".
    words = re.findall(r"[^\W\d_]+", normalize(" ".join(clean)))
    vocabulary = {w.casefold() for w in words if not w.isupper()}
    kept = [o for o in outputs if not (_plain_word(o) and o in vocabulary)]
    return InjectionScan(
        sentences=tuple(sentences), outputs=tuple(sorted(kept, key=len, reverse=True))
    )


def screen_sentence(
    text: str, quotes: Sequence[str], scan: InjectionScan, *, keys: Sequence[str] | None = None
) -> Finding | None:
    """Why an answer sentence must not be published, or None.

    injection_instruction: the sentence (or a source sentence it quotes) is an instruction, by
    itself or as found in its paragraph; injection_demanded_output: it carries an output an
    instruction anywhere in the screened texts demands (a link, a marker word)."""
    keys = scan.keys if keys is None else keys
    if is_instruction(text):
        return Finding(reason="injection_instruction")
    for candidate in (text, *quotes):
        key = _key(candidate)
        if key and any(key == k or _contains(key, k) for k in keys):
            return Finding(reason="injection_instruction")
    output = carried_output(text, scan.outputs)
    if output is not None:
        return Finding(reason="injection_demanded_output", output=output)
    return None


def _contains(a: str, b: str) -> bool:
    """One sentence quotes the other; short ones ("Sure!") only match exactly."""
    return min(len(a), len(b)) >= _MIN_KEY and (a in b or b in a)


def carried_output(text: str, outputs: Sequence[str]) -> str | None:
    """The first demanded output the text holds, matched case-insensitively and as a whole word
    where the output begins or ends with a letter or digit."""
    haystack = _norm_output(text)
    for output in outputs:
        if _output_pattern(output).search(haystack):
            return output
    return None


@paragraph_cache("function")
def _output_pattern(output: str) -> re.Pattern[str]:
    head = r"(?<![a-z0-9])" if output[0].isascii() and output[0].isalnum() else ""
    tail = r"(?![a-z0-9])" if output[-1].isascii() and output[-1].isalnum() else ""
    return re.compile(head + re.escape(output) + tail)
