"""Would a reader-like signal separate answerable from unanswerable questions? An offline study.

    PYTHONPATH=bench .venv/bin/python bench/studies/answerability_study.py

Reads the outcomes of bench/public_sets.py (bench/out/public/<set>.jsonl) and the plain files it
wrote (bench/out/public-kb/), and for each question's top-ranked document computes:

- lexical coverage: the share of the question's content words (and the IDF-weighted share, IDF
  over the scope's files) found in the document;
- token alignment: all-MiniLM-L6-v2's contextual token vectors of the question's content
  word pieces, each matched to its most similar token of the document (cut in 200-word pieces);
  the mean, the IDF-weighted mean and the minimum of those best matches.

Then, beside the trace's answerability inputs, it fits the gate as bench/fit_answerability.py
does (fit halves of every set, threshold at <= 4% refused on each fit half) with and without
the new signals, and prints each set's report-half figures. Nothing here changes the service.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter

import numpy as np
from fit_answerability import FEATURES, Point, figures, fit, threshold

from ingest.embeddings import SentenceTransformerEmbedder
from service.settings import Settings, project_root

OUT = project_root() / "bench" / "out"
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "as",
        "into",
        "than",
        "then",
        "there",
        "their",
        "they",
        "he",
        "she",
        "his",
        "her",
        "i",
        "you",
        "my",
        "your",
        "we",
        "our",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "not",
        "no",
        "yes",
        "if",
        "about",
        "after",
        "before",
        "during",
        "between",
        "over",
        "under",
        "up",
        "down",
        "out",
        "off",
        "so",
        "such",
        "also",
        "just",
        "only",
        "very",
        "more",
        "most",
        "much",
        "many",
        "any",
        "some",
        "all",
        "each",
        "other",
    ]
)
_WORD = re.compile(r"[a-z0-9]+")
PIECE_WORDS = 200


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOP]


def main() -> int:
    settings = Settings.from_env()
    embedder = SentenceTransformerEmbedder(settings.embedding)
    model = embedder._load()  # a study: the token vectors of the same model
    tokenizer = model.tokenizer
    rows = []
    for path in sorted((OUT / "public").glob("*.jsonl")):
        for position, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            o = json.loads(line)
            if not o.get("answerability_inputs") or not o["documents"]:
                continue
            rows.append((path.stem, position, o))
    texts: dict[str, str] = {}
    for _, _, o in rows:
        doc = o["documents"][0]
        if doc not in texts:
            texts[doc] = re.sub(r"^#.*\n", "", (OUT / "public-kb" / doc).read_text("utf-8"))
    scope_df: dict[str, Counter[str]] = {}
    scope_n: Counter[str] = Counter()
    for doc_path in {p.relative_to(OUT / "public-kb").as_posix()
                     for p in (OUT / "public-kb").rglob("*.md")}:  # fmt: skip
        scope = doc_path.split("/")[0]
        scope_df.setdefault(scope, Counter()).update(
            set(content((OUT / "public-kb" / doc_path).read_text("utf-8")))
        )
        scope_n[scope] += 1

    def idf(scope: str, w: str) -> float:
        return math.log((scope_n[scope] + 1) / (scope_df[scope].get(w, 0) + 1)) + 1

    # Token vectors of each document piece and each question.
    def token_vectors(items: list[str]) -> list[tuple[list[str], np.ndarray]]:
        out = []
        for start in range(0, len(items), 32):
            batch = items[start : start + 32]
            encoded = model.encode(batch, output_value="token_embeddings", batch_size=32)
            for text, vectors in zip(batch, encoded, strict=True):
                ids = tokenizer(text, truncation=True, max_length=256)["input_ids"]
                tokens = tokenizer.convert_ids_to_tokens(ids)
                v = np.asarray(vectors.cpu() if hasattr(vectors, "cpu") else vectors)
                v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
                out.append((tokens[: len(v)], v))
        return out

    docs = list(texts)
    pieces: dict[str, list[int]] = {}
    flat: list[str] = []
    for d in docs:
        ws = texts[d].split()
        pieces[d] = []
        for i in range(0, max(len(ws), 1), PIECE_WORDS):
            pieces[d].append(len(flat))
            flat.append(" ".join(ws[i : i + PIECE_WORDS]))
    print(f"{len(rows)} questions, {len(docs)} documents, {len(flat)} pieces", flush=True)
    piece_vectors = token_vectors(flat)
    question_vectors = token_vectors([o["question"] for _, _, o in rows])

    points_base, points_new = [], []
    extra = ("lexCoverage", "lexIdfCoverage", "alignMean", "alignIdfMean", "alignMin")
    for (dataset, position, o), (q_tokens, q_vec) in zip(rows, question_vectors, strict=True):
        doc = o["documents"][0]
        scope = doc.split("/")[0]
        q_words = list(dict.fromkeys(content(o["question"])))
        d_words = set(words(texts[doc]))
        found = [w for w in q_words if w in d_words]
        weights = [idf(scope, w) for w in q_words]
        lex = len(found) / len(q_words) if q_words else 1.0
        lex_idf = (sum(idf(scope, w) for w in found) / sum(weights)) if q_words else 1.0
        doc_vec = np.vstack([piece_vectors[i][1] for i in pieces[doc]])
        keep = [i for i, t in enumerate(q_tokens)
                if t not in ("[CLS]", "[SEP]") and t.strip("#").isalnum()
                and t.strip("#") not in STOP]  # fmt: skip
        if keep:
            best = (q_vec[keep] @ doc_vec.T).max(axis=1)
            w = np.array([idf(scope, q_tokens[i].strip("#")) for i in keep])
            align = (float(best.mean()), float((best * w).sum() / w.sum()), float(best.min()))
        else:
            align = (1.0, 1.0, 1.0)
        inputs = o["answerability_inputs"]
        base = tuple(float(inputs[f]) for f in FEATURES)
        fit_half = position % 2 == 0
        points_base.append(Point(dataset, fit_half, bool(o["answerable"]), base))
        points_new.append(Point(dataset, fit_half, bool(o["answerable"]),
                                (*base, lex, lex_idf, *align)))  # fmt: skip
    for label, points in (("trace inputs", points_base), ("+ lexical, alignment", points_new)):
        fitting = [p for p in points if p.fit]
        raw, bias = fit(fitting)
        t = threshold(fitting, raw, bias, 0.04)
        print(f"\n{label}: threshold {t:.3f}")
        for dataset in sorted({p.dataset for p in points}):
            mine = [p for p in points if p.dataset == dataset and not p.fit]
            print(f"  {dataset:<16} report {figures(mine, raw, bias, t)}")
        names = (*FEATURES, *extra)[: len(raw)]
        print("  weights " + ", ".join(f"{n} {w:.2f}" for n, w in zip(names, raw, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
