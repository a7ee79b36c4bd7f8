"""Comparable facts: what one sentence states about a subject, typed, with its conditions.

Pure and deterministic. `extract_facts` reads every sentence of the passages it is given (whole
documents, in reading order) and returns two families of facts:

- Attribute facts: "<subject> is/are/was <value>" (also "is located in", "is owned by"), where
  the subject's head word names the fact class and the value must have that class's shape:
  measurement (number + unit, tolerances such as ±0.10 mm), date, state/status, location,
  unitless quantity, ownership identity, endpoint (path or URL; a /v1/ inside it is value text),
  dependency, format, protocol, semantic version, service port and response status code.
  The subject key is the class plus the normalised subject with its attribute head.
- Aligned facts, for open prose: a value token run (a number, a date, a capitalised name; it
  stops at a sentence end) with `aligned_context_tokens` words on each side. Two such facts are
  comparable only when their surroundings agree for a long stretch (conflicts.py checks that per
  pair), which is how one statement copied or edited between sources looks; a shared template
  about different entities breaks early, at the entity's own figures. Tokens compare without
  layout (case, thousands separators, currency and percent signs).

Qualifiers put a fact into a condition scope: temporal (historical, planned; "current" is the
default scope), environment (staging, production, development, qa, uat, sandbox, preview,
canary, in environment/deployment phrasing), version ("version 2.0", "v2", never inside a path)
and platform (Windows, macOS, Linux, Android, iOS, web, desktop, mobile, in platform phrasing).
Facts are comparable only within one scope, so qualified facts never contradict each other.

Only assertions are facts. A statement inside a condition clause ("When emergency mode is
turned off, the device returns to standard mode") names the condition of the rest of its
sentence: it is no fact, and it puts the attribute facts it governs into a `condition` scope
keyed by its subordinator class and normalised words ("if emergency mode disabled"), so two
sources stating different values under one condition still disagree. Values offered as options
("the mode is on or off") are no fact. In an instruction ("From Settings, tap Fingerprints")
names are the labels to act on, which two procedures of one manual differ in by design: they
give no aligned facts (an instruction's figures still do).
"""

from __future__ import annotations

from service.text.analysis import FactKind, Scope
from service.text.facts.aligned import is_anchor_token, month_words, norm_token
from service.text.facts.attributes import normalise_value, sentence_facts
from service.text.facts.conditions import ConditionClause, condition_clauses, condition_scope
from service.text.facts.context import in_context
from service.text.facts.extraction import (
    FactHead,
    bind_facts,
    edit_fact,
    extract_facts,
    fact_heads,
    forget_facts,
    frame_halves,
    paragraph_analysis,
)
from service.text.facts.instructions import is_instruction
from service.text.facts.model import (
    FACT_LAYOUT,
    Fact,
    FactSettings,
    NodeFact,
    ParagraphTokens,
    Passage,
)
from service.text.facts.qualifiers import qualifiers
from service.text.facts.words import (
    DocumentProfile,
    DocumentProfiles,
    DocumentWords,
    WordToken,
    document_profile,
    document_profiles,
    document_vocabularies,
    document_words,
)

__all__ = [
    "FACT_LAYOUT",
    "ConditionClause",
    "DocumentProfile",
    "DocumentProfiles",
    "DocumentWords",
    "Fact",
    "FactHead",
    "FactKind",
    "FactSettings",
    "NodeFact",
    "ParagraphTokens",
    "Passage",
    "Scope",
    "WordToken",
    "bind_facts",
    "condition_clauses",
    "condition_scope",
    "document_profile",
    "document_profiles",
    "document_vocabularies",
    "document_words",
    "edit_fact",
    "extract_facts",
    "fact_heads",
    "forget_facts",
    "frame_halves",
    "in_context",
    "is_anchor_token",
    "is_instruction",
    "month_words",
    "norm_token",
    "normalise_value",
    "paragraph_analysis",
    "qualifiers",
    "sentence_facts",
]
