"""Claim-to-citation mapping (answerClaimCitations) and the quote check of every citation.

Each public sentence is a claim. Its support is the share of its content words found in the
quoted evidence behind it: >= `_SUPPORTED` supported, >= `_WEAK` weak, else unsupported. A quote
is accepted only when it equals the source between its offsets, checked here against the stored
paragraph text (a paragraph's text is exactly `source[startOffset:endOffset]`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from service.answer.composer import DraftSentence
from service.answer.sentences import EvidenceSentence

__all__ = [
    "ClaimCitation",
    "claim_support",
    "map_claims",
    "quote_matches_source",
    "verify_quotes",
]

Support = Literal["supported", "weak", "unsupported"]
_SUPPORTED = 0.8
_WEAK = 0.5
# fmt: off
_STOP = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were",
    "which", "with",
])
# fmt: on


class ClaimCitation(msgspec.Struct, frozen=True, kw_only=True):
    claim: str
    index: int  # sentence position in the public answer
    citation_ids: tuple[str, ...]
    fragment_ids: tuple[str, ...]
    source_paths: tuple[str, ...]
    status: Support
    support: float  # share of the claim's content words in its evidence


def claim_support(claim: str, evidence: Iterable[str]) -> float:
    words = [w for w in re.findall(r"\w+", claim.lower()) if w not in _STOP]
    if not words:
        return 1.0
    pool = set(re.findall(r"\w+", " ".join(evidence).lower()))
    return sum(1 for w in words if w in pool) / len(words)


def map_claims(
    sentences: Sequence[DraftSentence], fragment_text: Mapping[str, str]
) -> list[ClaimCitation]:
    """`fragment_text`: fragment id -> its pack text (the evidence of conflict lines)."""
    claims = []
    for index, sentence in enumerate(sentences):
        # A sentence is read under its heading (a procedure's step names itself there).
        quotes = [e.quote for e in sentence.evidence]
        quotes += [e.heading_path[-1] for e in sentence.evidence if e.heading_path]
        quotes += [fragment_text[f] for f in sentence.fragment_ids if f in fragment_text]
        support = claim_support(sentence.text, quotes) if quotes else 0.0
        status: Support = (
            "supported" if support >= _SUPPORTED else "weak" if support >= _WEAK else "unsupported"
        )
        citation_ids = tuple(dict.fromkeys(
            [e.citation_id for e in sentence.evidence] + list(sentence.citation_ids)))  # fmt: skip
        paths = tuple(dict.fromkeys(e.path for e in sentence.evidence))
        claims.append(
            ClaimCitation(
                claim=sentence.text,
                index=index,
                citation_ids=citation_ids,
                fragment_ids=tuple(dict.fromkeys(
                    [*sentence.fragment_ids, *(e.fragment_id for e in sentence.evidence)])),
                source_paths=paths,
                status=status,
                support=round(support, 3),
            )
        )  # fmt: skip
    return claims


def quote_matches_source(sentence: EvidenceSentence, paragraph: Mapping[str, Any]) -> bool:
    start, end = int(paragraph["startOffset"]), int(paragraph["endOffset"])
    if not start <= sentence.start <= sentence.end <= end:
        return False
    text = str(paragraph["text"])
    return text[sentence.start - start : sentence.end - start] == sentence.quote


def verify_quotes(
    evidence: Sequence[EvidenceSentence], paragraphs: Iterable[Mapping[str, Any]]
) -> tuple[list[EvidenceSentence], list[EvidenceSentence]]:
    """(verified, rejected): each quote against its paragraph's stored text."""
    by_id = {str(p["paragraphId"]): p for p in paragraphs}
    ok: list[EvidenceSentence] = []
    bad: list[EvidenceSentence] = []
    for sentence in evidence:
        paragraph = by_id.get(sentence.paragraph_id)
        (ok if paragraph is not None and quote_matches_source(sentence, paragraph) else bad).append(
            sentence
        )
    return ok, bad
