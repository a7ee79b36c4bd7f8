"""Evidence-path latency benchmark: our whole evidence path (plan -> context pack, query
embedding included) and our retrieval stage, side by side with neo4j-graphrag's
HybridRetriever on the same Neo4j, indexes, embedder and questions, at 10k and 100k paragraphs.

    .venv/bin/python bench/evidence_latency.py [--questions 220] [--top-k 10] [--scales 10k,100k]

Corpus: generated Markdown documents (sentences of the shipped knowledge base recombined, 25
paragraphs per document under headings, a table and a code block, five front-matter relations
and a link per document) under bench/out/evidence-latency/corpus/, ingested by the project's own
`ingest()` (parse, units, skip-unchanged, write, prune, end-of-scope steps) into the scopes
`bench-latency-10k` and `bench-latency-100k`. Embedding 110k paragraphs with the real model would
take hours on 2 cores, so the stored paragraph vectors are synthetic: 2,000 real paragraphs of
the corpus are embedded once with the real model, and ingest is handed an embedder that gives
every paragraph a perturbed copy of one of them (Gaussian noise, re-normalised). Query
embeddings are always real. Unchanged documents are skipped by ingest itself, so a scope that
already holds this corpus is not rewritten; a partial or outdated one is completed.

Timing (warm, one client, sequential): after a warm-up, every question is run through seven
measures in rotating order: the query embedding alone, our retrieval stage (plan + query
embedding + `retrieve_spans`), our whole evidence path (plan -> context pack), our whole answer
path (`answer_question`), `HybridRetriever.search(query_text=..., top_k=10)` (its embedding
included: in this process it embeds through the very code ours uses, so the two differ only in
the retrieval work), and both retrievals again with the question's vector given (computed
untimed just before): what each does after the embedding, without the overlap of our first
reads with it.
Each measure meets the question as new (compiled per-question regular expressions are dropped
from Python's `re` cache before each one). HybridRetriever has no scope filter: it searches the
whole indexes, i.e. every scope in the database. Raw timings, traces and the table go to
bench/out/evidence-latency/.

neo4j-graphrag comes from bench/graphrag-requirements.txt: installed into the project venv
when `pip install --dry-run` shows it changes no installed package, else into
bench/out/graphrag-venv and run in a child process that reports per-query timings as JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import inspect
import json
import os
import random
import re
import statistics
import subprocess
import sys
import textwrap
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ingest.embeddings import SentenceTransformerEmbedder, model_location
from ingest.markdown import parse_markdown
from ingest.pipeline import IngestOptions, ingest
from ingest.problems import Problem
from ingest.units import ParsedSource, embedding_input, read_source
from service.answer.sentences import forget_public_texts
from service.api.process import freeze_startup_objects
from service.db import open_graph
from service.db.graph import Graph
from service.pipeline.augment import augment_documents
from service.pipeline.context_pack import build_context_pack
from service.pipeline.graph_context import build_graph_context
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.question.runner import answer_question, embed_in_background
from service.settings import PipelineSettings, Settings, project_root
from service.text.analysis import forget_decoded
from service.text.facts import forget_facts
from service.text.spans import forget_sentences

ROOT = project_root()
OUT = ROOT / "bench" / "out" / "evidence-latency"
REQUIREMENTS = ROOT / "bench" / "graphrag-requirements.txt"
GRAPHRAG_VENV = ROOT / "bench" / "out" / "graphrag-venv"
GRAPHRAG_VERSION = "1.21.0"
# Installing into the project venv must leave these (and every other installed package) alone.
PROTECTED = ("neo4j", "neomodel", "msgspec", "litestar", "sentence-transformers", "torch")

SCALES: dict[str, tuple[str, int]] = {
    "1k": ("bench-latency-1k", 1_000),  # a quick check of the script, not part of the report
    "10k": ("bench-latency-10k", 10_000),
    "100k": ("bench-latency-100k", 100_000),
}
PARAGRAPHS_PER_DOCUMENT = 25
SECTION_PARAGRAPHS = 5
BASE_VECTORS = 2_000  # real paragraphs embedded once; every stored vector is a perturbed copy
NOISE_SIGMA = 0.02  # per dimension: cosine(copy, original) ~ 0.93 for 384 dimensions
DIMENSIONS = 384
WARMUP_QUESTIONS = 10
VECTOR_INDEX = "paragraph_embedding"
FULLTEXT_INDEX = "paragraph_search"
MEASURES = (
    "whole",
    "answer",
    "retrieval",
    "embedding",
    "graphrag",
    "retrieval_given",
    "graphrag_given",
)
MEASURE_NAMES = {
    "whole": "ours: whole evidence path",
    "answer": "ours: whole answer path",
    "retrieval": "ours: retrieval stage (+embedding)",
    "embedding": "ours: query embedding alone",
    "graphrag": "neo4j-graphrag HybridRetriever",
    "retrieval_given": "ours: retrieval stage, vector given",
    "graphrag_given": "HybridRetriever, vector given",
}
TARGET_WHOLE_VS_GRAPHRAG_P95 = 1.5
TARGET_RETRIEVAL_VS_GRAPHRAG_P95 = 1.0
TARGET_WHOLE_P50_MS = 60.0
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_STOP = frozenset(
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
_VERBS = ("configure", "set up", "install", "clean", "measure", "check", "replace", "choose",
          "prepare", "test", "store", "repair")  # fmt: skip


# --------------------------------------------------------------------------- corpus


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
    return sorted(words - _STOP)


@dataclass
class Corpus:
    scope: str
    documents: list[tuple[str, str]]  # (path inside the scope, Markdown source)
    titles: list[str]
    paragraphs: int


def generate(scope: str, paragraphs: int, pool: Sequence[str], words: Sequence[str]) -> Corpus:
    """Deterministic Markdown documents for one scope, ~25 paragraphs each."""
    rng = random.Random(zlib.crc32(scope.encode()))
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
    after = scope_counts(graph, corpus.scope)
    if errors or after != expected:
        raise RuntimeError(f"{corpus.scope} holds {after}, expected {expected}; errors {errors}")
    done = {
        "added": len(report.added),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "removed": len(report.removed),
        "warnings": len(report.problems),
        "seconds": report.elapsed_s,
        "counts": after,
    }
    print(f"  {corpus.scope}: {done}", flush=True)
    return done


# --------------------------------------------------------------------------- questions


def make_questions(
    titles: Sequence[str], words: Sequence[str], pool: Sequence[str], count: int, seed: int
) -> list[tuple[str, str]]:
    """(kind, question): definitions, compares of document titles, how-to, why, keyword
    questions and 'explain in detail' (deep) questions, interleaved."""
    rng = random.Random(seed)

    def t() -> str:
        return rng.choice(titles)

    def w() -> str:
        return rng.choice(words)

    def keywords() -> str:
        sentence = rng.choice(pool)
        found = [x.lower() for x in re.findall(r"\b[A-Za-z]{4,}\b", sentence)]
        found = [x for x in dict.fromkeys(found) if x not in _STOP]
        return " ".join(found[: rng.randint(3, 5)]) or f"{w()} {w()} {w()}"

    makers: list[tuple[str, Callable[[], str]]] = [
        ("definition", lambda: rng.choice(
            [f"What is {t()}?", f"Define {t().lower()}.", f"What are {t().lower()}?",
             f"What is the {w()} of {t()}?"])),
        ("compare", lambda: rng.choice(
            [f"Compare {t()} and {t()}.", f"What is the difference between {t()} and {t()}?",
             f"{t()} vs {t()}", f"How does {t()} differ from {t()}?"])),
        ("how_to", lambda: rng.choice(
            [f"How do I {rng.choice(_VERBS)} {t().lower()}?",
             f"What are the steps to {rng.choice(_VERBS)} the {w()} {w()}?",
             f"How to {rng.choice(_VERBS)} {w()} for {w()}?"])),
        ("why", lambda: rng.choice(
            [f"Why does {t().lower()} need {w()}?", f"Why is {w()} {w()} important?",
             f"What causes {w()} {w()} in {t()}?", f"What happens if the {w()} fails?"])),
        ("keywords", keywords),
        ("keywords", lambda: rng.choice(
            [f"{t()} {w()}", " ".join(rng.choice(pool).split()[:8]).rstrip(".,;:")])),
        ("deep", lambda: f"Explain {t()} in detail."),
    ]  # fmt: skip
    questions: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(questions) < count:
        kind, make = makers[len(questions) % len(makers)]
        text = make()
        if text not in seen:
            seen.add(text)
            questions.append((kind, text))
    return questions


# --------------------------------------------------------------------------- neo4j-graphrag


def lucene_escape(text: str) -> str:
    """HybridRetriever passes query_text to Lucene as is: a '?' would be a wildcard and ':' a
    field; escaping (the same rule as ours) keeps the question plain text."""
    return _LUCENE_SPECIAL.sub(r"\\\1", text)


class GraphragSide(Protocol):
    mode: str

    def search_ms(self, question: str, vector: list[float] | None = None) -> tuple[float, int]: ...

    def close(self) -> None: ...


class InProcessGraphrag:
    """HybridRetriever in this process, on the very driver our Graph uses, embedding with the
    very code ours uses (`embedder`, its cache bypassed): the comparison is of the retrieval
    work, not of two ways to call the same model."""

    def __init__(self, graph: Graph, embedder: SentenceTransformerEmbedder, top_k: int) -> None:
        from neo4j_graphrag.embeddings.base import Embedder
        from neo4j_graphrag.retrievers import HybridRetriever

        class SameEmbedder(Embedder):
            def embed_query(self, text: str) -> list[float]:
                embedder.forget([text])  # every question is new to the model
                return embedder.embed([text])[0]

        self.mode = (
            f"in-process (project venv, neo4j-graphrag {_installed('neo4j-graphrag')}; "
            "embeds with our query embedder)"
        )
        self.top_k = top_k
        self.retriever = HybridRetriever(
            graph.driver, vector_index_name=VECTOR_INDEX, fulltext_index_name=FULLTEXT_INDEX,
            embedder=SameEmbedder(), neo4j_database=graph.database,
        )  # fmt: skip

    def search_ms(self, question: str, vector: list[float] | None = None) -> tuple[float, int]:
        started = time.perf_counter()
        result = self.retriever.search(
            query_text=lucene_escape(question), query_vector=vector, top_k=self.top_k
        )
        return (time.perf_counter() - started) * 1000, len(result.items)

    def close(self) -> None:
        pass


def graphrag_worker() -> None:
    """Runs in bench/out/graphrag-venv as `python -c <this function's source>`: reads a JSON
    config line, then one line per question ({"question", "vector": list or null}); answers
    one JSON line per question."""
    import json
    import os
    import re
    import sys
    import time

    import neo4j
    from neo4j_graphrag.embeddings import SentenceTransformerEmbeddings
    from neo4j_graphrag.retrievers import HybridRetriever

    config = json.loads(sys.stdin.readline())
    os.environ["HF_HUB_OFFLINE"] = "1"
    special = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
    driver = neo4j.GraphDatabase.driver(config["uri"], auth=(config["user"], config["password"]))
    import torch

    torch.set_num_threads(config["threads"])
    retriever = HybridRetriever(
        driver, vector_index_name=config["vector"], fulltext_index_name=config["fulltext"],
        embedder=SentenceTransformerEmbeddings(model=config["model"], device="cpu"),
        neo4j_database=config["database"],
    )  # fmt: skip
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        asked = json.loads(line)
        text = special.sub(r"\\\1", asked["question"])
        started = time.perf_counter()
        result = retriever.search(query_text=text, query_vector=asked["vector"], top_k=config["k"])
        elapsed = (time.perf_counter() - started) * 1000
        print(json.dumps({"ms": elapsed, "items": len(result.items)}), flush=True)
    driver.close()


class SubprocessGraphrag:
    """HybridRetriever in its own venv; timed inside the child, one question at a time, so its
    queries interleave with ours exactly as the in-process variant's would."""

    def __init__(self, python: Path, connection: dict[str, Any], top_k: int) -> None:
        self.mode = f"child process ({python}), neo4j-graphrag {GRAPHRAG_VERSION}"
        source = textwrap.dedent(inspect.getsource(graphrag_worker)) + "\ngraphrag_worker()\n"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        self.process = subprocess.Popen(
            [str(python), "-c", source], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, env=env,
        )  # fmt: skip
        self._send({**connection, "k": top_k})
        self._receive()

    def _send(self, value: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(value) + "\n")
        self.process.stdin.flush()

    def _receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the neo4j-graphrag child process ended")
        return dict(json.loads(line))

    def search_ms(self, question: str, vector: list[float] | None = None) -> tuple[float, int]:
        self._send({"question": question, "vector": vector})
        answer = self._receive()
        return float(answer["ms"]), int(answer["items"])

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def _installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def graphrag_side(
    graph: Graph, embedder: SentenceTransformerEmbedder, connection: dict[str, Any], top_k: int
) -> GraphragSide:
    """In the project venv if neo4j-graphrag is there or installs without changing any installed
    package (checked with `pip install --dry-run --report`); else in bench/out/graphrag-venv,
    where it embeds with its own SentenceTransformerEmbeddings."""
    if _installed("neo4j-graphrag") == GRAPHRAG_VERSION:
        return InProcessGraphrag(graph, embedder, top_k)
    pip = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check"]
    report = subprocess.run(
        [*pip, "--dry-run", "--quiet", "--report", "-", "-r", str(REQUIREMENTS)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    changes = {
        _norm(item["metadata"]["name"]): item["metadata"]["version"]
        for item in json.loads(report.stdout)["install"]
    }
    clashes = {n: v for n, v in changes.items() if _installed(n) not in (None, v)}
    if not clashes:
        print(f"  installing into the project venv (dry run adds only: {sorted(changes)})")
        subprocess.run([*pip, "--quiet", "-r", str(REQUIREMENTS)], check=True)
        importlib.invalidate_caches()
        return InProcessGraphrag(graph, embedder, top_k)
    protected = sorted(set(clashes) & {_norm(p) for p in PROTECTED})
    print(f"  neo4j-graphrag would change {clashes} (protected: {protected}); "
          f"using {GRAPHRAG_VENV}", flush=True)  # fmt: skip
    python = GRAPHRAG_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(GRAPHRAG_VENV)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-r", str(REQUIREMENTS)], check=True,
    )  # fmt: skip
    return SubprocessGraphrag(python, connection, top_k)


# --------------------------------------------------------------------------- timing


class CpuWindow:
    """CPU seconds spent during a window: the whole machine, this process, the Neo4j server,
    and everything else (other people's work), from /proc."""

    def __init__(self, neo4j_pid: int | None) -> None:
        self.neo4j_pid = neo4j_pid
        self.canary_start = cpu_canary_ms()
        self.tick = os.sysconf("SC_CLK_TCK")
        self.start = self._sample()
        self.started = time.perf_counter()
        self.load_start = os.getloadavg()

    def _sample(self) -> tuple[float, float, float]:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        values = [int(x) for x in fields]
        busy = (sum(values[:8]) - values[3] - values[4]) / self.tick  # minus idle and iowait
        times = os.times()
        own = times.user + times.system
        server = 0.0
        if self.neo4j_pid:
            try:
                stat = Path(f"/proc/{self.neo4j_pid}/stat").read_text().rsplit(")", 1)[1].split()
                server = (int(stat[11]) + int(stat[12])) / self.tick
            except (OSError, IndexError, ValueError):
                server = 0.0
        return busy, own, server

    def finish(self) -> dict[str, float]:
        busy, own, server = (b - a for a, b in zip(self.start, self._sample(), strict=True))
        wall = time.perf_counter() - self.started
        cores = os.cpu_count() or 1
        return {
            "wallS": round(wall, 1),
            "machineBusyCpuS": round(busy, 1),
            "benchProcessCpuS": round(own, 1),
            "neo4jCpuS": round(server, 1),
            "otherCpuS": round(max(0.0, busy - own - server), 1),
            "otherShareOfMachinePct": round(
                100 * max(0.0, busy - own - server) / (wall * cores), 1
            ),
            "loadavg1Start": round(self.load_start[0], 2),
            "loadavg1End": round(os.getloadavg()[0], 2),
            "cpuCanaryMsStart": self.canary_start,
            "cpuCanaryMsEnd": cpu_canary_ms(),
        }


def cpu_canary_ms() -> float:
    """A fixed pure-Python workload (best of 5): the host's speed at this moment. Neighbours on
    the same host (invisible from inside this VM) slow every measure alike; compare runs by it."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        sum(i * i for i in range(200_000))
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 2)


def neo4j_pid() -> int | None:
    try:
        return int((ROOT / ".kgs" / "neo4j" / "run" / "neo4j.pid").read_text().strip())
    except (OSError, ValueError):
        return None


@dataclass
class ScaleResult:
    scale: str
    scope: str
    paragraphs: int
    times: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in MEASURES})
    stages: list[dict[str, float]] = field(default_factory=list)
    cypher: dict[str, list[float]] = field(default_factory=dict)
    cypher_rows: dict[str, list[int]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    intents: dict[str, int] = field(default_factory=dict)
    vector_modes: dict[str, int] = field(default_factory=dict)
    hits: list[int] = field(default_factory=list)
    graphrag_items: list[int] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    corpus: dict[str, Any] = field(default_factory=dict)


def time_scale(
    graph: Graph,
    embedder: SentenceTransformerEmbedder,
    graphrag: GraphragSide,
    result: ScaleResult,
    questions: Sequence[tuple[str, str]],
    warmup: Sequence[tuple[str, str]],
    top_k: int,
    *,
    cold_texts: bool,
) -> None:
    settings = PipelineSettings()
    scope = result.scope

    def embedding(q: str) -> float:
        started = time.perf_counter()
        embedder.embed([plan_query(q, scope).query])
        return (time.perf_counter() - started) * 1000

    def retrieval(q: str) -> float:
        started = time.perf_counter()
        plan = plan_query(q, scope)
        vector = embed_in_background(embedder, plan.query)  # as answer_question does
        retrieve_spans(graph.child(), plan, vector, settings, top_k=top_k)
        return (time.perf_counter() - started) * 1000

    def retrieval_given(q: str, vector: list[float]) -> float:
        started = time.perf_counter()
        retrieve_spans(graph.child(), plan_query(q, scope), vector, settings, top_k=top_k)
        return (time.perf_counter() - started) * 1000

    def whole(q: str) -> float:
        """Plan -> context pack: the stages answer_question runs before its answer stages."""
        started = time.perf_counter()
        run = graph.child()
        plan = plan_query(q, scope)
        vector = embed_in_background(embedder, plan.query)
        found = retrieve_spans(run, plan, vector, settings, top_k=top_k)
        context = build_graph_context(run, plan, found, settings)
        augmentation = augment_documents(run, plan, found, context, settings)
        build_context_pack(
            augmentation.fragments, plan.budget, observed_ids=augmentation.observed_ids,
            unavailable=augmentation.unavailable,
        )  # fmt: skip
        return (time.perf_counter() - started) * 1000

    def answer(q: str, record: bool) -> float:
        started = time.perf_counter()
        response = answer_question(graph, embedder, q, scope=scope, top_k=top_k)
        elapsed = (time.perf_counter() - started) * 1000
        if record:
            trace = response["trace"]
            result.stages.append(dict(trace["timingsMs"]))
            for call in trace["cypher"]:
                result.cypher.setdefault(call["statement"], []).append(call["elapsedMs"])
                result.cypher_rows.setdefault(call["statement"], []).append(call["rows"])
            _count(result.statuses, response["status"])
            _count(result.intents, trace["plan"]["intent"])
            _count(result.vector_modes, trace["retrieval"]["vectorMode"])
            result.hits.append(len(trace["retrieval"]["hits"]))
        return elapsed

    def graphrag_ms(q: str, record: bool, vector: list[float] | None = None) -> float:
        elapsed, items = graphrag.search_ms(q, vector)
        if record:
            result.graphrag_items.append(items)
        return elapsed

    patterns: dict[Any, Any] = {}  # Python's regex cache after the warm-up

    def run(q: str, rotation: int, record: bool) -> None:
        given = embedder.embed([plan_query(q, scope).query])[0]  # one vector, both sides
        measures: list[tuple[str, Callable[[], float]]] = [
            ("whole", lambda: whole(q)),
            ("answer", lambda: answer(q, record)),
            ("retrieval", lambda: retrieval(q)),
            ("embedding", lambda: embedding(q)),
            ("graphrag", lambda: graphrag_ms(q, record)),
            ("retrieval_given", lambda: retrieval_given(q, given)),
            ("graphrag_given", lambda: graphrag_ms(q, False, given)),
        ]
        rotation %= len(measures)
        for name, measure in measures[rotation:] + measures[:rotation]:
            _forget_question_patterns(patterns)
            embedder.forget([plan_query(q, scope).query])  # the question is always new
            if cold_texts:
                forget_texts()
                embedder.forget()
            elapsed = measure()
            if record:
                result.times[name].append(elapsed)

    for i, (_, q) in enumerate(warmup):
        run(q, i, record=False)
    if not cold_texts:
        for _, q in questions:  # untimed: paragraphs' sentence splits and facts get cached
            answer_question(graph, embedder, q, scope=scope, top_k=top_k)
    patterns.update(_regex_cache_snapshot())
    window = CpuWindow(neo4j_pid())
    for i, (_, q) in enumerate(questions):
        run(q, i, record=True)
        if (i + 1) % 50 == 0:
            print(f"    {i + 1}/{len(questions)} questions", flush=True)
    result.cpu = window.finish()


def forget_texts() -> None:
    """Each measure meets the question's paragraphs cold too: the service keeps the sentence
    splits and extracted facts of recent paragraphs, and a previous measure of the same question
    would have filled them (the benchmark then understates what the caches give). The
    embedder's cache of sentence vectors is emptied beside them."""
    forget_sentences()
    forget_facts()
    forget_decoded()  # facts.forget_facts empties the decodes, not the split words
    forget_public_texts()


def _regex_cache_snapshot() -> dict[Any, Any]:
    cache = getattr(re, "_cache", None)
    return dict(cache) if isinstance(cache, dict) else {}


def _forget_question_patterns(baseline: dict[Any, Any]) -> None:
    """Every measure meets the question for the first time. The pipeline compiles regular
    expressions from the question's terms (service/text/spans.py), and Python's `re` cache
    would otherwise hand the second measure of a question the first one's compiled patterns
    (several ms per term). The patterns cached by the warm-up (the static ones) stay."""
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict):
        cache.clear()
        cache.update(baseline)
        extra = getattr(re, "_cache2", None)  # Python 3.12+: a second, smaller cache
        if isinstance(extra, dict):
            extra.clear()
    else:
        re.purge()


def _count(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


# --------------------------------------------------------------------------- report


def pct(values: Sequence[float], q: float) -> float:
    """Percentile with linear interpolation (numpy's default)."""
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(pct(values, 50), 2),
        "p95": round(pct(values, 95), 2),
        "mean": round(statistics.fmean(values), 2) if values else float("nan"),
        "n": len(values),
    }


def table(rows: Sequence[Sequence[str]], header: Sequence[str], left: int = 1) -> Iterator[str]:
    """Plain-text table: the first `left` columns left-aligned, the (numeric) rest right."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{c:<{w}}" if i < left else f"{c:>{w}}"
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    yield line(header)
    yield "  ".join("-" * w for w in widths)
    yield from (line(row) for row in rows)


def report(results: Sequence[ScaleResult], meta: dict[str, Any]) -> list[str]:
    lines = [
        f"evidence-path latency, {meta['date']}, {meta['cores']} cores, Neo4j "
        f"{meta['neo4jVersion']}, top-k {meta['topK']}, {meta['questions']} questions per "
        f"scope after {WARMUP_QUESTIONS} warm-up questions, one client, sequential, torch "
        f"threads {meta['embeddingThreads']}, text caches {meta['textCaches']}; newest code "
        f"file {meta['codeNewest']}",
        f"neo4j-graphrag: {meta['graphragMode']}; HybridRetriever has NO scope filter: it "
        f"searches the whole indexes ({meta['indexedParagraphs']:,} paragraphs of every scope "
        "in this database), ours searches only the named scope",
        "",
    ]
    rows = []
    for r in results:
        for m in MEASURES:
            s = summary(r.times[m])
            rows.append([f"{r.scale} ({r.paragraphs:,})", MEASURE_NAMES[m],
                         f"{s['p50']:.1f}", f"{s['p95']:.1f}", f"{s['mean']:.1f}"])  # fmt: skip
    lines += table(rows, ["scope", "measure", "p50 ms", "p95 ms", "mean ms"], left=2)
    lines += ["", "targets:"]
    for r in results:
        whole, ret, theirs = (summary(r.times[m]) for m in ("whole", "retrieval", "graphrag"))
        checks = [
            ("whole p95 / graphrag p95", whole["p95"] / theirs["p95"],
             TARGET_WHOLE_VS_GRAPHRAG_P95, "x"),
            ("retrieval p95 / graphrag p95", ret["p95"] / theirs["p95"],
             TARGET_RETRIEVAL_VS_GRAPHRAG_P95, "x"),
            ("whole p50", whole["p50"], TARGET_WHOLE_P50_MS, " ms"),
        ]  # fmt: skip
        for name, value, target, unit in checks:
            verdict = "met" if value <= target else "MISSED"
            lines.append(f"  {r.scale:<5} {name:<30} {value:8.2f}{unit:<3} target <= "
                         f"{target}{unit.strip()}  {verdict}")  # fmt: skip
    lines += ["", "after the embedding (both retrievals with the question's vector given):"]
    for r in results:
        ours, theirs = summary(r.times["retrieval_given"]), summary(r.times["graphrag_given"])
        lines.append(
            f"  {r.scale:<5} ours / HybridRetriever p50 {ours['p50']:.1f} / {theirs['p50']:.1f} "
            f"ms ({ours['p50'] / theirs['p50']:.2f}x), p95 {ours['p95']:.1f} / "
            f"{theirs['p95']:.1f} ms ({ours['p95'] / theirs['p95']:.2f}x)"
        )
    lines += ["", "our answer path per stage (trace.timingsMs; retrieval includes the embedding):"]
    stage_names = list(dict.fromkeys(k for r in results for s in r.stages for k in s))
    rows = []
    for stage in stage_names:
        row = [stage]
        for r in results:
            values = [s.get(stage, 0.0) for s in r.stages]
            row += [f"{pct(values, 50):.1f}", f"{pct(values, 95):.1f}"]
        rows.append(row)
    header = ["stage"] + [f"{r.scale} {q}" for r in results for q in ("p50", "p95")]
    lines += table(rows, header)
    lines += ["", "our Cypher statements (trace.cypher elapsedMs, client-side incl. round trip):"]
    names = sorted(
        {n for r in results for n in r.cypher},
        key=lambda n: -max(statistics.fmean(r.cypher.get(n, [0])) for r in results),
    )
    rows = []
    for name in names:
        row = [name]
        for r in results:
            values = r.cypher.get(name, [])
            rows_n = r.cypher_rows.get(name, [])
            row += [f"{len(values) / max(1, len(r.stages)):.3g}",
                    f"{pct(values, 50):.1f}" if values else "-",
                    f"{pct(values, 95):.1f}" if values else "-",
                    f"{statistics.median(rows_n):.0f}" if rows_n else "-"]  # fmt: skip
        rows.append(row)
    header = ["statement"] + [f"{r.scale} {c}" for r in results
                              for c in ("calls/q", "p50", "p95", "rows p50")]  # fmt: skip
    lines += table(rows, header)
    if len(results) >= 2:
        small, large = results[0], results[-1]
        lines += ["", f"growth {small.scale} -> {large.scale} "
                      f"({large.paragraphs / small.paragraphs:.0f}x paragraphs):"]  # fmt: skip
        for m in MEASURES:
            a, b = summary(small.times[m]), summary(large.times[m])
            lines.append(f"  {MEASURE_NAMES[m]:<38} p50 {a['p50']:7.1f} -> {b['p50']:7.1f} ms "
                         f"({b['p50'] / a['p50']:.2f}x)   p95 {a['p95']:7.1f} -> {b['p95']:7.1f} "
                         f"ms ({b['p95'] / a['p95']:.2f}x)")  # fmt: skip
    lines += ["", "sanity and machine:"]
    for r in results:
        lines.append(
            f"  {r.scale}: statuses {r.statuses}, intents {r.intents}, vector mode "
            f"{r.vector_modes}, our hits/q p50 {statistics.median(r.hits):.0f}, graphrag items/q "
            f"p50 {statistics.median(r.graphrag_items):.0f}"
        )
        lines.append(f"  {r.scale}: CPU during timing {r.cpu}")
    return lines


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=220)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument(
        "--text-caches", choices=("warm", "cold"), default="warm",
        help="warm: one untimed pass over the questions first fills the service's sentence and "
        "fact caches, as a running service has them; cold: emptied before every measure",
    )  # fmt: skip
    parser.add_argument("--scales", default="10k,100k", help="comma list of: " + ", ".join(SCALES))
    args = parser.parse_args()
    if args.questions < 1:
        parser.error("--questions must be positive")
    scales = [s.strip() for s in args.scales.split(",") if s.strip()]
    unknown = [s for s in scales if s not in SCALES]
    if unknown:
        parser.error(f"unknown scale(s) {unknown}; known: {sorted(SCALES)}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env()
    newest = max(
        (f for d in ("service", "ingest", "cypher") for f in (ROOT / d).rglob("*.*")
         if "__pycache__" not in f.parts),
        key=lambda f: f.stat().st_mtime,
    )  # fmt: skip
    code_newest = (  # the code this run imported (checked at start: others edit concurrently)
        f"{newest.relative_to(ROOT)} "
        f"{time.strftime('%H:%M:%S', time.localtime(newest.stat().st_mtime))}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    pool = sentences()
    words = vocabulary(pool)
    corpora = {s: generate(SCALES[s][0], SCALES[s][1], pool, words) for s in scales}
    base_corpus = generate(*SCALES["10k"], pool, words)

    def base_texts() -> list[str]:
        texts: list[str] = []
        for parsed in parse_all(base_corpus, settings.ingest.max_paragraph_chars):
            title = parsed.knowledge_points[0].title
            texts += [embedding_input(title, b) for b in parsed.markdown.blocks]
            if len(texts) >= BASE_VECTORS:
                break
        return texts[:BASE_VECTORS]

    graph, connection, close = open_graph(settings)
    try:
        embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())  # as served
        embedder.embed(["warm the model"])
        print("corpus:", flush=True)
        synthetic: list[SyntheticEmbedder] = []

        def make_synthetic() -> SyntheticEmbedder:
            if not synthetic:
                texts = base_texts()
                vectors = base_vectors(texts, embedder)
                synthetic.append(SyntheticEmbedder(texts, vectors, embedder.name))
            return synthetic[0]

        written = {s: ensure_corpus(graph, corpora[s], settings, make_synthetic) for s in scales}
        model_path = model_location(settings.embedding.model)
        graphrag = graphrag_side(
            graph, embedder,
            {"uri": connection.uri, "user": connection.user, "password": connection.password,
             "database": connection.database, "model": model_path, "vector": VECTOR_INDEX,
             "fulltext": FULLTEXT_INDEX, "threads": settings.embedding.max_threads},
            args.top_k,
        )  # fmt: skip
        # As a served process does once started (service/api/state.py): what was allocated so
        # far (the model, the generated corpora) stays out of garbage collection, so full
        # collections scan only what questions allocate.
        freeze_startup_objects()
        try:
            version = graph.driver.get_server_info().agent
            indexed = graph.read_text(
                "MATCH (p:Paragraph) RETURN count(p) AS n, count(p.embedding) AS v", {}
            )[0]
            results = []
            for s in scales:
                corpus = corpora[s]
                seed = zlib.crc32(corpus.scope.encode())
                questions = make_questions(corpus.titles, words, pool, args.questions, seed)
                warmup = make_questions(corpus.titles, words, pool, WARMUP_QUESTIONS, seed + 1)
                result = ScaleResult(s, corpus.scope, corpus.paragraphs, corpus=written[s])
                print(f"timing {corpus.scope}: {len(questions)} questions", flush=True)
                time_scale(graph, embedder, graphrag, result, questions, warmup, args.top_k,
                           cold_texts=args.text_caches == "cold")  # fmt: skip
                results.append(result)
        finally:
            graphrag.close()
    finally:
        close()

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "embeddingThreads": settings.embedding.query_threads,
        "codeNewest": code_newest,
        "cores": os.cpu_count(),
        "neo4jVersion": version,
        "topK": args.top_k,
        "questions": args.questions,
        "textCaches": args.text_caches,
        "graphragMode": graphrag.mode,
        "indexedParagraphs": int(indexed["n"]),
        "indexedVectors": int(indexed["v"]),
        "totalSeconds": round(time.perf_counter() - started, 1),
    }
    lines = report(results, meta)
    lines.append(f"  total run time {meta['totalSeconds']:.0f} s")
    print("\n" + "\n".join(lines))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (OUT / f"report-{stamp}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    raw = {
        "meta": meta,
        "scales": [
            {"scale": r.scale, "scope": r.scope, "paragraphs": r.paragraphs, "corpus": r.corpus,
             "summary": {m: summary(r.times[m]) for m in MEASURES}, "timesMs": r.times,
             "stagesMs": r.stages, "cypherMs": r.cypher, "cypherRows": r.cypher_rows,
             "cpu": r.cpu, "statuses": r.statuses, "intents": r.intents}
            for r in results
        ],
    }  # fmt: skip
    (OUT / f"results-{stamp}.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    print(f"  raw timings: {OUT / f'results-{stamp}.json'}")


if __name__ == "__main__":
    main()
