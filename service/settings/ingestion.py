"""Limits of one ingestion run (KGS_INGEST_*)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import ZERO_ALLOWED, env_name

__all__ = ["IngestSettings"]


class IngestSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of one ingestion run."""

    # Any file, original bytes: a PDF or Word file is kept whole by its version.
    max_file_bytes: int = 25_000_000
    # The text a document is read from: Markdown as written, or what a file converts to.
    max_source_chars: int = 2_000_000
    # Converting PDF, HTML and Word files (ingest/convert): bounds one hostile file cannot pass.
    max_pdf_pages: int = 2_000
    max_unzipped_bytes: int = 50_000_000  # a Word file's parts, uncompressed
    max_zip_ratio: float = 200.0  # uncompressed / compressed: above it, a zip bomb
    max_html_depth: int = 512  # deeper HTML nesting is read as flat text
    # Below this share of an HTML page's visible text kept (the rest navigation), warn.
    html_min_text_share: Annotated[float, ZERO_ALLOWED] = 0.2
    max_paragraph_chars: int = 20_000  # longer blocks are split at line boundaries
    # Longer prose paragraphs become passages cut between sentences: all-MiniLM-L6-v2 reads 256
    # word pieces (about 1.3 per English word) and ignores the rest, title prefix included.
    passage_words: Annotated[int, ZERO_ALLOWED] = 160
    # A scope with this many embedded paragraphs gets its own vector index (smaller scopes are
    # searched exactly); keep it equal to the pipeline's exact_vector_max_paragraphs.
    scope_vector_index_min_paragraphs: Annotated[
        int, env_name("KGS_SCOPE_VECTOR_INDEX_MIN_PARAGRAPHS")
    ] = 3000
    scope_label_batch_paragraphs: int = 10_000  # paragraphs labelled per write transaction
    scope_vector_index_timeout_s: float = 600.0  # wait for its population, then go on
    # A scope with this many paragraphs gets its own full-text index, so Lucene's BM25 statistics
    # are its own (smaller scopes are scored exactly by the service with the scope's statistics);
    # keep it equal to the pipeline's exact_fulltext_max_paragraphs.
    scope_fulltext_index_min_paragraphs: Annotated[
        int, env_name("KGS_SCOPE_FULLTEXT_INDEX_MIN_PARAGRAPHS")
    ] = 3000
    scope_fulltext_index_timeout_s: float = 600.0  # wait for its population, then go on
