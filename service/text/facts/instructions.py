"""Instructions: sentences that tell the reader what to do, whose names are labels to act on."""

from __future__ import annotations

import re

__all__ = ["is_instruction"]

# --- instructions ------------------------------------------------------------------------------

# Verbs that open an instruction ("Tap Add account > Google.", "From Settings, tap ..."): the
# names in one are the labels to act on. Two procedures of one manual share their wording
# ("From Settings, tap Biometrics and security > Fingerprints" / "> Samsung Blockchain
# Keystore") and differ in exactly those labels by design, so an instruction's names are not
# statements to compare; its figures ("hold the key for 10 seconds") still are.
_IMPERATIVE = (
    r"(?:tap|double[- ]tap|touch|swipe|drag|press|click|select|choose|scroll|pinch|slide|hold|"
    r"enter|type|turn|open|follow|navigate|go|set\s+up|use|check|enable|disable|activate|"
    r"deactivate|install|insert|remove|connect|disconnect|restart|reset|adjust|customi[sz]e|"
    r"configure|view|change|allow|launch|ensure|make\s+sure)"
)
_INSTRUCTION = re.compile(
    # at the sentence start, after a NOTE / TIP label or an option's "Label:"
    rf"^\W*(?:(?i:note|tip|caution|warning|important)\b\W*|[^.:;]{{1,60}}:\s*)?(?i:{_IMPERATIVE})\b"
    # after an opening phrase ("From Settings, tap", "To save power, turn") or "then"
    rf"|\b(?:From|On|In|To|When|If|Once|After|Before|While|Under|Using|For|With)\b[^,.;:]{{0,80}},"
    rf"\s*(?i:and\s+)?(?i:then\s+)?(?i:{_IMPERATIVE})\b"
    rf"|\b(?i:then)\s+(?i:{_IMPERATIVE})\b"
)
# The verb read as a noun or a title word: "Use of force was ...", "Open Season is a film".
_NOT_IMPERATIVE = re.compile(r"\s+(?:of\b|(?:\S+\s+){0,2}(?:is|was|are|were|has|had|have)\b)")


def is_instruction(sentence: str) -> bool:
    """The sentence tells the reader what to do (an imperative), at its start or after an
    opening phrase: "Tap More options > Send email.", "From Apps, tap Samsung folder"."""
    return any(
        not _NOT_IMPERATIVE.match(sentence, match.end())
        for match in _INSTRUCTION.finditer(sentence)
    )
