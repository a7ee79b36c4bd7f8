"""Contradictions between comparable facts of the complete selected documents.

Pure and deterministic. `scan_conflicts` extracts the facts of every passage (facts.py) and
reports a Conflict for each subject key and condition scope that holds two or more distinct
values: adjacent sentences, the same section, two documents, or an appendix far from the matched
span all count alike, because the whole documents are scanned. Facts whose qualifiers differ
(historical vs current, staging vs production, version 1.0 vs 2.0, Windows vs Android, "when
emergency mode is on" vs no condition) are in different scopes and never conflict; a state
named only inside a condition is no fact at all (facts.py).

Aligned facts (open prose) conflict only pairwise, across documents, and not when one value
holds the other (an insertion): they meet by the words right before or right after their value
(so a typo on one side of an edit does not hide it), and the two surroundings must agree on at
least `aligned_min_shared_tokens` words, including at least `aligned_min_shared_values` figures
or names, before the first difference. An edited copy of a statement passes; a shared template
about another entity ("the population was …") stops at the entity's own figures. Two documents
are compared this way only as one page edited (`_one_entity_edit`): they share at least
`min_same_entity_share` of their names and figures (namesakes' pages built from one template
share few), and not each of them names both values (a page naming both lists them).

Plain (lower-case) words are compared by `word_edits`: when one document is a near copy of
another (`word_edit_min_copy_share` of its words in common stretches), a word or two it replaces
between `word_edit_min_shared_tokens` equal words on each side ("the academy takes its name" /
"the university takes its name") is a conflict, unless the two are one spelling or the
sentences carry different condition scopes.

Facts on one subject whose values differ only across condition scopes are reported as
QualifiedFacts instead: evidence to keep with its qualifier (the current value answers, the
historical, planned or other-environment one stays as scoped provenance), never a conflict.

What a scan costs is kept to what can conflict: the facts come from the Fact nodes read with
the paragraphs (or, for a document without them, from the analyses stored at ingest), and only
those that can meet another value (an attribute subject stated with two values, an aligned fact
whose half-frame another document shares with a different value) are bound to their sentences.
Each document's profile (its words, names and figures) is read with it too; a document without
one gets it made only when two of its statements are compared. With `focus` (the
documents retrieval matched directly), aligned statements and word edits are compared only in
pairs with a focus document, the only ones `select_conflicts` can keep.

`select_conflicts` keeps the findings relevant to the question: a side in a document the
retrieval matched directly (its knowledge point is what the question is about), or a subject
that shares a word with the question. Conflicts found only among graph-neighbour documents about
other subjects are left out, so neighbours cannot degrade an answer about something else. An
aligned conflict must also change the kind of value the question asks for (`answer_shapes`: a
year for "built", a figure for "population", a name for "director"): when a question about a
director meets "The Squeeze (1977)" against "The Squeeze (1987)", the edit is the year that
tells two films apart, not a disagreement about who directed one.
"""

from __future__ import annotations

from service.pipeline.conflicts.model import (
    Conflict,
    ConflictScan,
    ConflictSettings,
    QualifiedFacts,
)
from service.pipeline.conflicts.scan import (
    detect_conflicts,
    qualified_facts,
    scan_conflicts,
    word_edits,
)
from service.pipeline.conflicts.selection import answer_shapes, select_conflicts
from service.pipeline.conflicts.wording import conflict_text

__all__ = [
    "Conflict",
    "ConflictScan",
    "ConflictSettings",
    "QualifiedFacts",
    "answer_shapes",
    "conflict_text",
    "detect_conflicts",
    "qualified_facts",
    "scan_conflicts",
    "select_conflicts",
    "word_edits",
]
