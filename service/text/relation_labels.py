"""Words that name relations (Mermaid edge labels) mapped to the relation allowlist, and the
normalisation used to match names, titles and aliases ("Water glass" == "waterglass")."""

from __future__ import annotations

import re
import unicodedata

from service.graph_model import RELATION_TYPES
from service.text.text_cache import paragraph_cache

__all__ = ["compact_key", "relation_for_label", "slug"]

_NOT_ALNUM = re.compile(r"[\W_]+")

_SYNONYMS: dict[str, str] = {
    "is a": "IS_A", "is an": "IS_A", "type of": "IS_A", "kind of": "IS_A", "subclass of": "IS_A",
    "part of": "PART_OF", "component of": "PART_OF", "belongs to": "PART_OF",
    "member of": "PART_OF",
    "example of": "EXAMPLE_OF", "instance of": "EXAMPLE_OF",
    "prerequisite of": "PREREQUISITE_OF", "prerequisite for": "PREREQUISITE_OF",
    "required by": "PREREQUISITE_OF", "needed for": "PREREQUISITE_OF",
    "precedes": "PRECEDES", "before": "PRECEDES", "then": "PRECEDES", "next": "PRECEDES",
    "followed by": "PRECEDES", "step before": "PRECEDES",
    "depends on": "DEPENDS_ON", "requires": "DEPENDS_ON", "needs": "DEPENDS_ON",
    "relies on": "DEPENDS_ON",
    "causes": "CAUSES", "leads to": "CAUSES", "results in": "CAUSES", "produces": "CAUSES",
    "triggers": "CAUSES", "cause": "CAUSES",
    "enables": "ENABLES", "allows": "ENABLES", "makes possible": "ENABLES", "permits": "ENABLES",
    "contrasts with": "CONTRASTS_WITH", "contrast with": "CONTRASTS_WITH", "vs": "CONTRASTS_WITH",
    "versus": "CONTRASTS_WITH", "differs from": "CONTRASTS_WITH", "unlike": "CONTRASTS_WITH",
    "compared with": "CONTRASTS_WITH", "compare": "CONTRASTS_WITH",
    "analogous to": "ANALOGOUS_TO", "similar to": "ANALOGOUS_TO", "like": "ANALOGOUS_TO",
    "resembles": "ANALOGOUS_TO", "analogy": "ANALOGOUS_TO",
    "applies to": "APPLIES_TO", "used for": "APPLIES_TO", "used in": "APPLIES_TO",
    "references": "REFERENCES", "refers to": "REFERENCES", "see": "REFERENCES",
    "see also": "REFERENCES", "mentions": "REFERENCES",
    "cites": "CITES", "cited in": "CITES",
}  # fmt: skip


def relation_for_label(label: str) -> str | None:
    """The allowlisted relation type a label names, or None when it names none."""
    words = " ".join(re.sub(r"[^\w\s]", " ", label.replace("_", " ")).lower().split())
    if not words:
        return None
    upper = words.upper().replace(" ", "_")
    if upper in RELATION_TYPES:
        return upper
    return _SYNONYMS.get(words)


@paragraph_cache("function")
def compact_key(text: str) -> str:
    """Case-, width-, space- and punctuation-insensitive key: 'Water-glass' -> 'waterglass'.
    Cached: answering compares the same sentences and terms many times per question."""
    normal = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_ALNUM.sub("", normal)  # [\W_] is exactly "not str.isalnum()"


def slug(text: str) -> str:
    """A readable id from a path or title: 'Cups/Plastic Cup.md' -> 'cups-plastic-cup'."""
    normal = unicodedata.normalize("NFKC", text).lower()
    normal = re.sub(r"\.md$", "", normal)
    return re.sub(r"[^\w]+", "-", normal).strip("-") or "document"
