"""Ingest's embedding of many paragraphs: sentence-transformers' encode() against the traced
graph in length-sorted batches (ingest/embeddings.py), alternating, on the same texts.

    PYTHONPATH=bench .venv/bin/python bench/studies/traced_batches.py [--texts 1536] [--rounds 3]

The texts are the embedding inputs (title and paragraph) of the generated latency corpus
(bench/latency/corpus.py). Prints texts per second for each round and the largest difference
between the two paths' vectors.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
from latency.corpus import SCALES, generate, parse_all, sentences, vocabulary

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.units import embedding_input
from service.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--texts", type=int, default=1536)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env()
    pool = sentences()
    corpus = generate(*SCALES["10k"], pool, vocabulary(pool))
    texts: list[str] = []
    for parsed in parse_all(corpus, settings.ingest.max_paragraph_chars):
        title = parsed.knowledge_points[0].title
        texts += [embedding_input(title, block) for block in parsed.markdown.blocks]
        if len(texts) >= args.texts:
            break
    texts = texts[: args.texts]
    embedder = SentenceTransformerEmbedder(settings.embedding)
    model = embedder._load()
    if embedder._traced is None:
        raise SystemExit("the configured model is not traced: nothing to compare")
    size = embedder.settings.batch_size

    def encode() -> object:
        return model.encode(texts, batch_size=size, normalize_embeddings=True,
                            show_progress_bar=False, convert_to_numpy=True)  # fmt: skip

    def traced() -> object:
        return embedder._traced_batches(texts)

    difference = float(np.abs(np.asarray(encode()) - np.asarray(traced())).max())
    print(f"{len(texts)} texts, batch {size}, largest difference {difference:.2e}")
    paths: list[tuple[str, Callable[[], object]]] = [("encode", encode), ("traced", traced)]
    for number in range(args.rounds):
        for name, run in paths:
            started = time.perf_counter()
            run()
            rate = len(texts) / (time.perf_counter() - started)
            print(f"round {number + 1} {name}: {rate:.1f} texts/s")


if __name__ == "__main__":
    main()
