"""Helpers of the fault suite: a private Neo4j for the tests that kill one, and a scope's whole
state for the tests that must prove nothing changed."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.db import Graph, open_graph
from service.db.local_server import LocalNeo4jServer
from service.settings import Settings, project_root


def private_server(
    tmp_path_factory: pytest.TempPathFactory, name: str, *, bolt_port: int, http_port: int
) -> LocalNeo4jServer:
    """A Neo4j of its own (temporary home, its own ports, 512 MB heap), not started, so a test
    may kill it without disturbing the shared test server. Skips without Java and Maven."""
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.skip("the local Neo4j route needs Java and Maven")
    main = Settings.from_env().local
    home = tmp_path_factory.mktemp(name) / "neo4j"
    if (main.home / "lib" / ".pom.sha256").is_file():  # reuse the provisioned jars (hard links)
        shutil.copytree(main.home / "lib", home / "lib", copy_function=os.link)
    local = msgspec.structs.replace(
        main, home=home, bolt_port=bolt_port, http_port=http_port, heap_max="512m",
        pagecache_size="64m",
    )  # fmt: skip
    return LocalNeo4jServer(local, user="neo4j", password=None)


def server_env(server: LocalNeo4jServer) -> dict[str, str]:
    """The environment of a `kgs` child process on that server, embeddings off (the faults are
    in the graph writes, not in the model)."""
    return {
        **os.environ,
        "NEO4J_URI": server.bolt_uri,
        "NEO4J_USER": "neo4j",
        "NEO4J_PASSWORD": server.password(),
        "NEO4J_DATABASE": "neo4j",
        "KGS_EMBEDDINGS": "off",
    }


RUN_TIMEOUT_S = 600  # bound on one `kgs` child process of a fault test


def run_kgs(
    server: LocalNeo4jServer, *arguments: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """`kgs ARGUMENTS` as a child process on that server (`env`: server_env's, or another)."""
    command = [str(Path(sys.executable).parent / "kgs"), *arguments]
    return subprocess.Popen(command, env=env or server_env(server), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def run_ingest(server: LocalNeo4jServer, root: Path) -> subprocess.Popen[str]:
    """`kgs ingest ROOT` as a child process on that server, embeddings off."""
    return run_kgs(server, "ingest", str(root), "--no-progress")


def finish(process: subprocess.Popen[str]) -> str:
    """Its output, once it ended well."""
    out, err = process.communicate(timeout=RUN_TIMEOUT_S)
    assert process.returncode == 0, err[-2000:]
    return out


MEASURED_CPU_S = 300  # RLIMIT_CPU of a measured ingest: a runaway parser dies
# Runs the command and reports its peak RSS alone (this test process's other children, such as
# the CLI tests' model-loading ingests, would otherwise count in RUSAGE_CHILDREN).
_MEASURED = (
    "import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss; "
    "print(f'peak_rss_kib={peak}', file=sys.stderr); sys.exit(code)"
)


def _limit_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (MEASURED_CPU_S, MEASURED_CPU_S))


def measured_ingest(
    folder: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], int]:
    """`kgs ingest FOLDER` (embeddings off) under a CPU limit: the run and its peak RSS in KiB."""
    kgs = str(Path(sys.executable).parent / "kgs")
    run = subprocess.run(
        [sys.executable, "-c", _MEASURED, kgs, "ingest", str(folder), "--no-progress"],
        env={**env, "KGS_EMBEDDINGS": "off"}, capture_output=True, text=True, timeout=900,
        preexec_fn=_limit_cpu, cwd=project_root(),
    )  # fmt: skip
    return run, int(run.stderr.rsplit("peak_rss_kib=", 1)[1].split()[0])


def kill_server(server: LocalNeo4jServer) -> None:
    """kill -9 of the Neo4j server, returning once the process is gone."""
    pid = server.status().pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return
        time.sleep(0.1)
    raise AssertionError(f"process {pid} survived SIGKILL")


@contextmanager
def server_graph(server: LocalNeo4jServer) -> Iterator[Graph]:
    graph, _, close = open_graph(Settings.from_env(server_env(server)))
    try:
        yield graph
    finally:
        close()


def scope_state(graph: Graph, scope: str) -> dict[str, Any]:
    """Everything of a scope a half-written or hostile request could change."""
    documents = graph.read(
        "api/documents_page", scopes=[scope], after="", limit=100, statuses=["active", "withdrawn"]
    )
    return {
        "counts": graph.read("explore/scope_overview", scope=scope),
        "relations": graph.read("explore/scope_relations", scope=scope),
        "documents": documents,
        "paragraphs": {
            d["id"]: graph.read("api/document_paragraphs", id=d["id"]) for d in documents
        },
    }
