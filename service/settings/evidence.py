"""Limits of one question's evidence path (KGS_PIPELINE_*), of the conflict scan (KGS_CONFLICT_*,
fact extraction KGS_CONFLICT_FACTS_*) and the per-process text caches."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import ZERO_ALLOWED, env_name

__all__ = ["ConflictSettings", "FactSettings", "PipelineSettings", "TextCacheSettings"]


class PipelineSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of one question's evidence path; every one has a unit in its name."""

    retrieval_candidates: int = 40  # per channel (full-text, vector) before fusion
    # The question's terms in the scope's words (service/pipeline/scope_words.py): typing slips
    # and other forms of terms this long or longer, read off the words of this many paragraphs
    # near them; 0 paragraphs turns it off.
    scope_words_min_chars: int = 4
    scope_words_paragraphs: Annotated[int, ZERO_ALLOWED] = 200
    fusion: str = "score"  # "score": weighted min-max score fusion; "rrf": reciprocal rank fusion
    rrf_k: int = 60  # reciprocal rank fusion constant
    vector_weight: float = 0.6  # score fusion weights of the channels (see retrieval.py)
    fulltext_weight: float = 0.4  # full-text channel's weight
    knowledge_point_weight: float = 0.2  # knowledge point channel's weight
    evidence_documents: int = 4  # documents whose paragraphs may become direct support
    evidence_document_share: float = 0.6  # ... when their fused score is this share of the best
    top_k: int = 8  # fused paragraph hits kept
    vector_oversample: float = 2.0  # index candidates per wanted in-scope hit, after scope share
    vector_max_candidates: int = 4000  # HNSW top-k ceiling
    exact_vector_max_paragraphs: int = 3000  # smaller scopes: exact cosine over every paragraph
    # Smaller scopes: BM25 computed with the scope's own statistics over every matching paragraph
    # (service/pipeline/lexical.py); larger ones use their own full-text index once it is ONLINE.
    # Keep it equal to IngestSettings.scope_fulltext_index_min_paragraphs.
    exact_fulltext_max_paragraphs: int = 3000
    name_candidates: int = 50  # knowledge points fetched by name before exact name matching
    # Large scopes' knowledge-point names held in memory (service/pipeline/name_cache.py):
    # bytes held per process (0 turns the cache off; about 1.2 KiB a knowledge point as
    # estimated, so some 27,000 points), knowledge points per scope at most (a larger scope
    # uses the full-text search: its names would not fit), age at most.
    name_cache_bytes: Annotated[int, ZERO_ALLOWED] = 32 * 2**20
    name_cache_max_points: int = 25_000
    name_cache_ttl_s: float = 60.0
    parent_sections: int = 2  # sections read whole as parent context (those of the best hits)
    window_paragraphs: int = 5  # local window each side of a span
    window_paragraphs_structured: int = 2  # inside tables, code and Mermaid
    window_paragraphs_wide: int = 7  # causal and deep questions
    # How-to questions: the best hits' documents searched for the ordered procedure the hits
    # belong to (service/pipeline/procedure.py); 0 turns the search off.
    procedure_documents: Annotated[int, ZERO_ALLOWED] = 4
    graph_window: int = 3  # predecessors and successors each
    graph_window_deep: int = 5  # the same for deep questions
    min_relation_confidence: float = 0.5  # weaker relations are not followed
    high_confidence: float = 0.9  # a path this confident may use the deep window
    max_query_chars: int = 2000  # longest question the pipeline reads


class FactSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of fact extraction; each bounds work on one question's documents."""

    max_facts_per_document: int = 400  # attribute and aligned facts kept per document
    max_sentence_chars: int = 1200  # longer units (tables, run-on lists) are not read for facts
    aligned_context_tokens: int = 3  # words each side of an aligned fact's value (its frame)
    max_value_tokens: int = 5  # longest value token run of an aligned fact


class ConflictSettings(msgspec.Struct, frozen=True, kw_only=True):
    facts: FactSettings = FactSettings()
    max_conflicts: int = 3  # conflict fragments per question
    max_qualified_subjects: int = 2  # subjects whose condition-scoped facts become evidence
    max_values_per_conflict: int = 4  # distinct values named in one conflict
    quote_chars: int = 160  # longest quote of a source sentence in a conflict's text
    aligned_min_shared_tokens: int = 10  # words two aligned statements share around the value
    aligned_min_shared_values: int = 1  # figures or names among those shared words
    aligned_max_bucket: int = 40  # aligned facts per half-frame compared pairwise
    # Edits of plain words ("the academy takes its name" / "the university takes its name"),
    # found by comparing two documents word by word: equal words needed on each side, the
    # longest replaced run, the words read per document (bounds the comparison), and the
    # string similarity above which two words are one spelling, not an edit.
    word_edit_min_shared_tokens: int = 6
    word_edit_max_words: int = 2
    word_edit_max_document_tokens: int = 3000
    word_edit_max_similarity: float = 0.75
    # Share of the shorter document's words inside stretches the two documents have in common:
    # only a near copy of one text can replace a plain word (templated pages about different
    # things, "the offline map" / "the invoice export", stay apart).
    word_edit_min_copy_share: float = 0.8
    # Share of the smaller document's distinct names and figures the other one also has, below
    # which two pages are about different entities (one template, two towns or two films of
    # one name) and their statements are not compared: an edited copy keeps nearly all of them.
    min_same_entity_share: float = 0.3


class TextCacheSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Bytes of paragraphs' derived text each process keeps (service/text/text_cache.py), as
    estimated when an entry is stored."""

    # Sentence splits, extracted facts, word tokens and names together: about 48 KiB per
    # 1,000-character paragraph as estimated (40 KiB traced; ClapNQ's passages), so some 1,400
    # such paragraphs.
    text_bytes: Annotated[int, env_name("KGS_TEXT_CACHE_BYTES")] = 64 * 2**20
    # Results of pure functions of short texts (a sentence's language, compact keys, public
    # texts, injection findings): some 400 bytes an entry, about 26 KiB a question met new.
    function_bytes: Annotated[int, env_name("KGS_FUNCTION_CACHE_BYTES")] = 8 * 2**20
