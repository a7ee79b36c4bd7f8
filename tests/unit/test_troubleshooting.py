"""docs/troubleshooting.md quotes what kgs prints: each message is produced here by the code and
looked up on the page, so the page cannot drift from the code (the credentials cases need a
server: tests/integration/test_troubleshooting.py)."""

from __future__ import annotations

import inspect
import re
import socket
import subprocess
from pathlib import Path

import pytest

from service.api import health, state
from service.cli import main
from service.db.local_server import LocalNeo4jError, LocalNeo4jServer
from service.settings import LocalServerSettings, project_root

PAGE = project_root() / "docs" / "troubleshooting.md"


def on_page(message: str, fragment: str) -> None:
    """`fragment` is in the message kgs printed and, with the page's line breaks, on the page."""
    assert fragment in message, message
    words = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert fragment in words, f"docs/troubleshooting.md does not quote: {fragment}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_taken_bolt_port_is_named_with_the_fix(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        settings = LocalServerSettings(home=tmp_path, bolt_port=port, http_port=_free_port())
        with pytest.raises(LocalNeo4jError) as raised:
            LocalNeo4jServer(settings, user="neo4j", password="x").start()
    message = str(raised.value)
    taken_port = "port 7687 on 127.0.0.1 is in use by another process, so the local Neo4j cannot"
    on_page(message.replace(str(port), "7687"), taken_port + " start")
    assert "KGS_NEO4J_BOLT_PORT" in message


def test_missing_java_and_maven_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    server = LocalNeo4jServer(LocalServerSettings(home=tmp_path / "neo4j"), user="neo4j",
                              password="x")  # fmt: skip
    with pytest.raises(LocalNeo4jError) as raised:
        server.provision()
    on_page(str(raised.value), "Java 17+ is required for the local Neo4j server (java not found)")
    (tmp_path / "bin").mkdir()
    java = tmp_path / "bin" / "java"
    java.write_text("#!/bin/sh\n")
    java.chmod(0o755)
    with pytest.raises(LocalNeo4jError) as raised:
        server.provision()
    on_page(str(raised.value), "Maven (mvn) is required to provision the local Neo4j server")


def test_a_bad_value_and_a_misspelt_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KGS_PIPELINE_TOPK", "10")
    monkeypatch.setenv("KGS_PIPELINE_TOP_K", "ten")
    assert main(["cypher", "RETURN 1"]) != 0
    err = " ".join(capsys.readouterr().err.split())
    on_page(err, "kgs: KGS_PIPELINE_TOP_K must be an integer, got 'ten'")
    on_page(err, "kgs: warning: KGS_PIPELINE_TOPK is not a kgs setting and is ignored; did you "
                 "mean KGS_PIPELINE_TOP_K?")  # fmt: skip


def test_the_make_messages_are_the_pages() -> None:
    makefile = (project_root() / "Makefile").read_text(encoding="utf-8")
    run = subprocess.run(["make", "-n", "browser"], capture_output=True, text=True, check=False,
                         cwd=project_root())  # fmt: skip
    assert run.returncode == 0
    assert "Python 3.11 is required ($(PYTHON) not found)" in makefile
    on_page("Python 3.11 is required (python3.11 not found)",
            "Python 3.11 is required (python3.11 not found)")  # fmt: skip
    packages = re.search(r"^BROWSER_PACKAGES := (.+)$", makefile, re.MULTILINE)
    assert packages is not None
    said = f"make test needs Debian's {packages.group(1)} for the browser test"
    assert "make test needs Debian's $(BROWSER_PACKAGES) for the browser test" in makefile
    on_page(said, said)


def test_the_readiness_reasons_are_the_pages() -> None:
    source = inspect.getsource(health)
    for detail in ("Neo4j connection is not open", "Neo4j is unreachable: ",
                   "indexes are not ONLINE"):  # fmt: skip
        on_page(source, detail.strip())
    assert 'f"embedding model {resources.model_state}"' in source
    assert 'f"failed: {error}"' in inspect.getsource(state)
    on_page("embedding model failed: no such model", "embedding model failed: ")
