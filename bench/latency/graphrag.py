"""neo4j-graphrag's retrievers on the same Neo4j, indexes and questions as ours: HybridRetriever
(ten chunks), and HybridCypherRetriever with the retrieval query a graphrag user writes to get
graph context like ours (RETRIEVAL_QUERY). In this process when neo4j-graphrag installs into the
project venv without changing any installed package, else in bench/out/graphrag-venv as a child
process that reports per-query timings."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Protocol

from ingest.embeddings import SentenceTransformerEmbedder
from latency import ROOT
from service.db.graph import Graph

REQUIREMENTS = ROOT / "bench" / "graphrag-requirements.txt"
GRAPHRAG_VENV = ROOT / "bench" / "out" / "graphrag-venv"
GRAPHRAG_VERSION = "1.21.0"
# Installing into the project venv must leave these (and every other installed package) alone.
PROTECTED = ("neo4j", "neomodel", "msgspec", "litestar", "sentence-transformers", "torch")
VECTOR_INDEX = "paragraph_embedding"
FULLTEXT_INDEX = "paragraph_search"
# Per hit: its parent section, the five paragraphs before and after it, and the three most
# confident typed neighbours of its document's knowledge points in each direction, each with
# its own page's lead paragraph. HybridCypherRetriever runs it after its hybrid search, with
# `node` and `score` bound.
RETRIEVAL_QUERY = """
MATCH (d:Document {id: node.documentId})
CALL {
  WITH node
  OPTIONAL MATCH (h:Heading)-[:HAS_PARAGRAPH]->(node)
  OPTIONAL MATCH (h)-[:HAS_PARAGRAPH]->(s:Paragraph)
  WITH h, s ORDER BY s.ordinal
  RETURN h.text AS heading, collect(s.text) AS section
}
CALL {
  WITH node
  OPTIONAL MATCH (b:Paragraph)-[:NEXT*1..5]->(node)
  WITH b ORDER BY b.ordinal
  RETURN collect(b.text) AS before
}
CALL {
  WITH node
  OPTIONAL MATCH (node)-[:NEXT*1..5]->(a:Paragraph)
  WITH a ORDER BY a.ordinal
  RETURN collect(a.text) AS after
}
CALL {
  WITH d
  MATCH (k:KnowledgePoint)-[:DESCRIBED_IN]->(d)
  MATCH (k)-[r]->(n:KnowledgePoint)
  WITH n, r ORDER BY r.confidence DESC LIMIT 3
  OPTIONAL MATCH (n)-[:DESCRIBED_IN]->(nd:Document)
  OPTIONAL MATCH (lead:Paragraph {documentId: nd.id, ordinal: 0})
  RETURN collect({type: type(r), title: n.title, lead: lead.text}) AS successors
}
CALL {
  WITH d
  MATCH (k:KnowledgePoint)-[:DESCRIBED_IN]->(d)
  MATCH (n:KnowledgePoint)-[r]->(k)
  WITH n, r ORDER BY r.confidence DESC LIMIT 3
  OPTIONAL MATCH (n)-[:DESCRIBED_IN]->(nd:Document)
  OPTIONAL MATCH (lead:Paragraph {documentId: nd.id, ordinal: 0})
  RETURN collect({type: type(r), title: n.title, lead: lead.text}) AS predecessors
}
RETURN node.text AS text, score,
       {heading: heading, section: section, before: before, after: after,
        successors: successors, predecessors: predecessors} AS metadata
"""
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')


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

    def __init__(
        self, graph: Graph, embedder: SentenceTransformerEmbedder, top_k: int,
        retrieval_query: str | None = None,
    ) -> None:  # fmt: skip
        from neo4j_graphrag.embeddings.base import Embedder
        from neo4j_graphrag.retrievers import HybridCypherRetriever, HybridRetriever

        class SameEmbedder(Embedder):
            def embed_query(self, text: str) -> list[float]:
                embedder.forget([text])  # every question is new to the model
                return embedder.embed([text])[0]

        self.mode = (
            f"in-process (project venv, neo4j-graphrag {_installed('neo4j-graphrag')}; "
            "embeds with our query embedder)"
        )
        self.top_k = top_k
        common: dict[str, Any] = {
            "vector_index_name": VECTOR_INDEX, "fulltext_index_name": FULLTEXT_INDEX,
            "embedder": SameEmbedder(), "neo4j_database": graph.database,
        }  # fmt: skip
        self.retriever: Any = (
            HybridCypherRetriever(graph.driver, retrieval_query=retrieval_query, **common)
            if retrieval_query
            else HybridRetriever(graph.driver, **common)
        )

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
    from neo4j_graphrag.retrievers import HybridCypherRetriever, HybridRetriever

    config = json.loads(sys.stdin.readline())
    os.environ["HF_HUB_OFFLINE"] = "1"
    special = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
    driver = neo4j.GraphDatabase.driver(config["uri"], auth=(config["user"], config["password"]))
    import torch

    torch.set_num_threads(config["threads"])
    common = {
        "vector_index_name": config["vector"], "fulltext_index_name": config["fulltext"],
        "embedder": SentenceTransformerEmbeddings(model=config["model"], device="cpu"),
        "neo4j_database": config["database"],
    }  # fmt: skip
    query = config.get("retrieval_query")
    retriever = (
        HybridCypherRetriever(driver, retrieval_query=query, **common)
        if query
        else HybridRetriever(driver, **common)
    )
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

    def __init__(
        self, python: Path, connection: dict[str, Any], top_k: int,
        retrieval_query: str | None = None,
    ) -> None:  # fmt: skip
        self.mode = f"child process ({python}), neo4j-graphrag {GRAPHRAG_VERSION}"
        source = textwrap.dedent(inspect.getsource(graphrag_worker)) + "\ngraphrag_worker()\n"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        self.process = subprocess.Popen(
            [str(python), "-c", source], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, env=env,
        )  # fmt: skip
        self._send({**connection, "k": top_k, "retrieval_query": retrieval_query})
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
    graph: Graph,
    embedder: SentenceTransformerEmbedder,
    connection: dict[str, Any],
    top_k: int,
    retrieval_query: str | None = None,
) -> GraphragSide:
    """In the project venv if neo4j-graphrag is there or installs without changing any installed
    package (checked with `pip install --dry-run --report`); else in bench/out/graphrag-venv,
    where it embeds with its own SentenceTransformerEmbeddings. `retrieval_query`:
    HybridCypherRetriever with it, else HybridRetriever."""
    if _installed("neo4j-graphrag") == GRAPHRAG_VERSION:
        return InProcessGraphrag(graph, embedder, top_k, retrieval_query)
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
        return InProcessGraphrag(graph, embedder, top_k, retrieval_query)
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
    return SubprocessGraphrag(python, connection, top_k, retrieval_query)
