"""The benchmark's corpus: generated Markdown documents (sentences of the shipped knowledge base
recombined, 25 paragraphs per document under headings, a table and a code block, five
front-matter relations and a link per document), written through the project's own `ingest()`
with synthetic paragraph vectors (perturbed copies of 2,000 real ones)."""

from __future__ import annotations

import hashlib
import random
import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.markdown import parse_markdown
from ingest.pipeline import IngestOptions, ingest
from ingest.problems import Problem
from ingest.units import ParsedSource, embedding_input, read_source
from latency import OUT, ROOT
from service.db.graph import Graph
from service.settings import Settings

SCALES: dict[str, tuple[str, int]] = {
    "1k": ("bench-latency-1k", 1_000),  # a quick check of the script, not part of the report
    "10k": ("bench-latency-10k", 10_000),
    "100k": ("bench-latency-100k", 100_000),
    "1m": ("bench-latency-1m", 1_000_000),
}
# A scale spread over several scopes: the database holds all of them, questions go to the first.
SPREAD_SCALES: dict[str, tuple[str, int, int]] = {
    "1m-10": ("bench-latency-1m-part", 10, 100_000),  # scope prefix, scopes, paragraphs each
}
PARAGRAPHS_PER_DOCUMENT = 25
SECTION_PARAGRAPHS = 5
BASE_VECTORS = 2_000  # real paragraphs embedded once; every stored vector is a perturbed copy
NOISE_SIGMA = 0.02  # per dimension: cosine(copy, original) ~ 0.93 for 384 dimensions
DIMENSIONS = 384
STOP_WORDS = frozenset(
    re.findall(
        r"\w+",
        "about above after again against also among another because been before being below "
        "between both could does doing during each either every from further have having here "
        "into itself just more most much must never other otherwise over same should since some "
        "such than that their theirs them then there these they this those through under until "
        "very what when where which while whom whose will with within without would your yours "
        "always often only still usually instead rather really thing things",
    )
)


def sentences() -> list[str]:
    """Prose sentences of the shipped general corpus (as in bench/ingest_bench.py)."""
    found: list[str] = []
    for file in sorted((ROOT / "knowledge_base").glob("*/*.md")):
        if file.parent.name == "promptinjection":  # attack pages, not prose: fake tags, fences
            continue
        for block in parse_markdown(file.read_text(encoding="utf-8")).blocks:
            if block.kind == "paragraph":
                text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", block.text)  # links would dangle
                found.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 40)
    return found


def vocabulary(pool: Sequence[str]) -> list[str]:
    """Content words of the corpus (lower-case, letters only, 5+ letters, no stop words)."""
    words = {w.lower() for s in pool for w in re.findall(r"\b[A-Za-z]{5,}\b", s)}
    return sorted(words - STOP_WORDS)


@dataclass
class Corpus:
    scope: str
    documents: list[tuple[str, str]]  # (path inside the scope, Markdown source)
    titles: list[str]
    paragraphs: int


def generate(
    scope: str, paragraphs: int, pool: Sequence[str], words: Sequence[str], seed: str | None = None
) -> Corpus:
    """Deterministic Markdown documents for one scope, ~25 paragraphs each; `seed` (a scope
    name) gives the very documents of that scope under this scope's name."""
    rng = random.Random(zlib.crc32((seed or scope).encode()))
    count = paragraphs // PARAGRAPHS_PER_DOCUMENT
    titles: list[str] = []
    seen: set[tuple[str, str]] = set()
    while len(titles) < count:
        a, b = rng.sample(words, 2)
        if (a, b) not in seen and (b, a) not in seen:
            seen.add((a, b))
            titles.append(f"{a.capitalize()} {b}")
    documents = []
    for i, title in enumerate(titles):
        others = [_other(rng, count, i) for _ in range(4)]  # never the document itself
        a, b = title.lower().split()
        lines = [
            "---",
            f"title: {title}",
            f"aliases: [{b} {a}]",
            "relations:",
            f"  - {{type: PRECEDES, target: doc-{(i + 1) % count:05}, confidence: 0.8}}",
            f"  - {{type: CONTRASTS_WITH, target: {others[0]}, confidence: 0.7}}",
            f"  - {{type: IS_A, target: {others[1]}, confidence: 0.9}}",
            f"  - {{type: CAUSES, target: {others[2]}, confidence: 0.75}}",
            f"  - {{type: DEPENDS_ON, target: {others[3]}, confidence: 0.6}}",
            "---",
            f"# {title}",
            "",
        ]
        for j in range(PARAGRAPHS_PER_DOCUMENT):
            if j % SECTION_PARAGRAPHS == 0 and j:
                h1, h2 = rng.sample(words, 2)
                lines += [f"## {h1.capitalize()} {h2}", ""]
            kind = j % 12
            if kind == 7:
                lines += ["| key | value |", "|---|---|", f"| topic | {a} |", f"| part | {j} |", ""]
            elif kind == 11:
                lines += ["```python", f"def {a}_{b}_{j}():", f"    return {j}", "```", ""]
            else:
                text = " ".join(rng.sample(pool, rng.randint(2, 4)))
                if j == 3:
                    text += f" See [the next topic](doc-{(i + 1) % count:05}.md)."
                lines += [text, ""]
        documents.append((f"{scope}/doc-{i:05}.md", "\n".join(lines)))
    return Corpus(scope, documents, titles, count * PARAGRAPHS_PER_DOCUMENT)


def _other(rng: random.Random, count: int, i: int) -> str:
    j = rng.randrange(count - 1)
    return f"doc-{j + (j >= i):05}"


def parse_all(corpus: Corpus, max_block_chars: int) -> list[ParsedSource]:
    parsed = []
    for path, source in corpus.documents:
        result = read_source(corpus.scope, path, source, max_block_chars=max_block_chars)
        if isinstance(result, Problem):
            raise RuntimeError(f"generated document does not parse: {result}")
        parsed.append(result)
    return parsed


def base_vectors(
    texts: Sequence[str], embedder: SentenceTransformerEmbedder
) -> npt.NDArray[np.float32]:
    """Real embeddings of the base paragraphs, cached under bench/out by content hash."""
    digest = hashlib.sha256("\0".join([embedder.name, *texts]).encode()).hexdigest()[:16]
    cache = OUT / f"base-vectors-{digest}.npy"
    if cache.exists():
        return np.load(cache)  # type: ignore[no-any-return]
    started = time.perf_counter()
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    print(f"  embedded {len(texts)} base paragraphs with the real model in "
          f"{time.perf_counter() - started:.1f} s", flush=True)  # fmt: skip
    OUT.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


def scope_counts(graph: Graph, scope: str) -> dict[str, int]:
    rows = graph.read_text(
        "MATCH (d:Document {scope: $scope}) WITH count(d) AS documents "
        "OPTIONAL MATCH (p:Paragraph {scope: $scope}) "
        "RETURN documents, count(p) AS paragraphs, count(p.embedding) AS vectors",
        {"scope": scope},
    )
    return {k: int(v) for k, v in rows[0].items()}


class SyntheticEmbedder:
    """Stands in for the model during corpus writing only: a paragraph's vector is a perturbed
    copy (Gaussian noise, re-normalised) of one of the real base vectors: its own when it is a
    base paragraph, else one chosen by a hash of its text. Deterministic per text."""

    def __init__(self, texts: Sequence[str], vectors: npt.NDArray[np.float32], model: str) -> None:
        self.name = f"synthetic-perturbed-{model}"  # never mistaken for real vectors
        # Its vectors are perturbed copies of that model's, in that model's space: the graph's
        # registry records that model (service/embedding_space.py), so questions embed with it.
        self.stands_in_for = model
        self.dimensions = DIMENSIONS
        self.base = vectors
        self.own = {t: i for i, t in enumerate(texts)}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float64)
        for row, text in enumerate(texts):
            seed = zlib.crc32(text.encode())
            pick = self.own.get(text, seed % len(self.base))
            noise = np.random.default_rng(seed).normal(0.0, NOISE_SIGMA, DIMENSIONS)
            out[row] = self.base[pick] + noise
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return [list(v) for v in out.tolist()]


def synthetic_embedder(
    embedder: SentenceTransformerEmbedder, base: Corpus, max_block_chars: int
) -> SyntheticEmbedder:
    """The stand-in for corpus writing: real vectors of the first BASE_VECTORS paragraphs of
    `base` (cached), perturbed for every other paragraph."""
    texts: list[str] = []
    for parsed in parse_all(base, max_block_chars):
        title = parsed.knowledge_points[0].title
        texts += [embedding_input(title, b) for b in parsed.markdown.blocks]
        if len(texts) >= BASE_VECTORS:
            break
    texts = texts[:BASE_VECTORS]
    return SyntheticEmbedder(texts, base_vectors(texts, embedder), embedder.name)


class PrintProgress:
    def __init__(self, total: int) -> None:
        self.total, self.done, self.next = total, 0, total // 10
        self.started = time.perf_counter()

    def files(self, count: int) -> None: ...

    def embeddings(self, count: int) -> None: ...

    def paragraphs(self, count: int) -> None:
        self.done += count
        if self.done >= self.next:
            self.next += self.total // 10
            elapsed = time.perf_counter() - self.started
            print(
                f"    {self.done:,}/{self.total:,} paragraphs written, {elapsed:.0f} s", flush=True
            )


def ensure_corpus(
    graph: Graph,
    corpus: Corpus,
    settings: Settings,
    synthetic: Callable[[], SyntheticEmbedder],
) -> dict[str, Any]:
    """Write the scope through the project's own `ingest()` (parse, units, skip-unchanged,
    write, prune, end-of-scope steps) with synthetic vectors. Unchanged documents are skipped by
    ingest itself, so a scope that already holds this corpus costs one parse and hash pass."""
    folder = OUT / "corpus" / corpus.scope
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {Path(path).name: source for path, source in corpus.documents}
    for stale in set(p.name for p in folder.glob("*.md")) - set(wanted):
        (folder / stale).unlink()
    for name, source in wanted.items():
        file = folder / name
        if not file.exists() or file.read_text(encoding="utf-8") != source:
            file.write_text(source, encoding="utf-8")
    before = scope_counts(graph, corpus.scope)
    expected = {"documents": len(wanted), "paragraphs": corpus.paragraphs,
                "vectors": corpus.paragraphs}  # fmt: skip
    print(f"  {corpus.scope}: holds {before}; ingesting (unchanged documents are skipped)",
          flush=True)  # fmt: skip
    report = ingest(
        graph, synthetic(), folder, IngestOptions(scope=corpus.scope, prune=True),
        settings.ingest, PrintProgress(corpus.paragraphs),
    )  # fmt: skip
    errors = [p for p in report.problems if p.severity == "error"]
    changed = report.added or report.updated or report.removed
    # Counting reads every vector (minutes at 1M paragraphs): not again when nothing changed.
    after = scope_counts(graph, corpus.scope) if changed or before != expected else before
    if errors or after != expected:
        raise RuntimeError(f"{corpus.scope} holds {after}, expected {expected}; errors {errors}")
    done = {
        "added": len(report.added),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "removed": len(report.removed),
        "warnings": len(report.problems),
        "seconds": report.elapsed_s,
        "paragraphsPerSecond": round(report.paragraphs_written / report.elapsed_s, 1)
        if report.paragraphs_written and report.elapsed_s
        else None,
        "scopeIndexSeconds": report.scope_index_s.get(corpus.scope),
        "counts": after,
    }
    print(f"  {corpus.scope}: {done}", flush=True)
    return done
