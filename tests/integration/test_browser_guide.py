"""Neo4j Browser, the way its users expect it, against the real Neo4j: every cypher/explore file
pastes into Browser as it is (its `:param` lines, then the statement), the guide at
GET /browser-guide is served without a key, and every query in it returns rows on the shipped
knowledge base with the values it sets.

The shipped scopes the queries name are ingested under a unique prefix, so the test owns its
data; `scope` and `path` values get that prefix when a query runs (knowledge point ids need
none: they are unique within their scope).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from service.api import create_app
from service.api.browser_guide import GUIDE_PATH
from service.api.state import AppResources
from service.db import Graph
from service.db.cypher_registry import CypherRegistry
from service.db.local_server import LocalNeo4jServer
from service.settings import LocalServerSettings, Settings, project_root
from tests.integration.conftest import delete_scope

SHIPPED = project_root() / "knowledge_base"
REGISTRY = CypherRegistry.load(project_root() / "cypher")
EXPLORE = REGISTRY.names("explore/")
# What the guide walks through, by slide id: start, a scope's overview, a document's outline,
# a knowledge point's neighbourhood, and why a neighbour was chosen for a question.
STEPS = {
    "start": "Start here",
    "overview": "The scope at a glance",
    "outline": "A document's outline",
    "neighbourhood": "A knowledge point's neighbourhood",
    "neighbour-choice": "Why a neighbour was chosen",
}
BROWSER_COMMANDS = {":params"}  # runnable blocks that are Browser commands, not queries
# Parameter names the explore files and the guide use, and how a shipped value becomes the
# value of this test's copy. A new name must be added here on purpose.
RENAMED: dict[str, bool] = {"scope": True, "path": True, "id": False, "source": False,
                            "target": False, "ordinal": False}  # fmt: skip
PARAM_LINE = re.compile(r"^:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+);$")


class _RunnableBlocks(HTMLParser):
    """The text of every <pre class="... runnable ..."> (what a click puts in the editor)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "pre" and "runnable" in classes:
            self._open = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._open is not None:
            self.blocks.append("".join(self._open).strip())
            self._open = None


def runnable_blocks(page: str) -> list[str]:
    parser = _RunnableBlocks()
    parser.feed(page)
    return parser.blocks


def paste(text: str) -> tuple[list[tuple[str, str]], str]:
    """What Browser's multi-statement editor runs for pasted text: whole-line `//` comments
    dropped, then each `:param name => expression;` command, then the statement."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("//")]
    params: list[tuple[str, str]] = []
    while lines and lines[0].startswith(":"):
        match = PARAM_LINE.match(lines.pop(0).strip())
        assert match, f"not a Browser ':param name => value;' line in:\n{text}"
        params.append((match.group(1), match.group(2)))
    return params, "\n".join(lines).strip()


def leading_param_names(path: Path) -> list[str]:
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PARAM_LINE.match(line)
        if match is None:
            break
        names.append(match.group(1))
    return names


class Shipped:
    def __init__(self, graph: Graph, prefix: str) -> None:
        self.graph, self.prefix = graph, prefix

    def values(self, params: list[tuple[str, str]]) -> dict[str, Any]:
        """Each expression evaluated as Browser does (`RETURN <expression>`), renamed for the
        test's copy of the shipped scopes."""
        values = {}
        for name, expression in params:
            assert name in RENAMED, f"${name}: say in RENAMED whether it names a scope or a path"
            value = self.graph.read_text(f"RETURN {expression} AS value", {})[0]["value"]
            values[name] = self.prefix + value if RENAMED[name] else value
        return values


def _shipped_scopes_named() -> set[str]:
    """The shipped scopes that the explore files' and the guide's values name."""
    scopes = set()
    for statement in REGISTRY:
        for name, expression in statement.browser_params:
            if name in ("scope", "path"):
                scopes.add(expression.strip("'\"").split("/", 1)[0])
    return scopes


@pytest.fixture(scope="module")
def shipped(
    graph: Graph, cli_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Shipped]:
    prefix = f"b{uuid.uuid4().hex[:6]}-"
    root = tmp_path_factory.mktemp("kb")
    scopes = sorted(_shipped_scopes_named())
    assert scopes and all((SHIPPED / s).is_dir() for s in scopes), scopes
    for scope in scopes:
        shutil.copytree(SHIPPED / scope, root / f"{prefix}{scope}")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "service.cli", "ingest", str(root), "--no-progress"],
            env={**cli_env, "KGS_EMBEDDINGS": "off"},  # the queries here read no vectors
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
        assert "problems: 0 files not ingested" in result.stdout, result.stdout
        yield Shipped(graph, prefix)
    finally:
        for scope in scopes:
            delete_scope(graph, prefix + scope)


@pytest.fixture(scope="module")
def client(settings: Settings, graph: Graph) -> Iterator[TestClient[Any]]:
    embedding = msgspec.structs.replace(settings.embedding, enabled=False)  # no model needed
    test_settings = msgspec.structs.replace(settings, embedding=embedding)
    resources = AppResources(test_settings, graph=graph)
    with TestClient(create_app(test_settings, resources)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def guide(client: TestClient[Any]) -> str:
    response = client.get(GUIDE_PATH)  # no API key
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["access-control-allow-origin"] == "*"
    return response.text


# -- the cypher/explore files -----------------------------------------------------------------


def test_the_explore_folder_is_there() -> None:
    assert len(EXPLORE) >= 9


@pytest.mark.parametrize("name", EXPLORE)
def test_explore_file_starts_with_exactly_its_param_lines(name: str) -> None:
    statement = REGISTRY.get(name)
    names = leading_param_names(statement.path)
    assert names, f"{statement.path} must start with its ':param' lines"
    assert len(names) == len(set(names)) and set(names) == set(statement.parameters)
    assert [n for n, _ in statement.browser_params] == names  # the loader read the same lines
    assert ":param" not in statement.text  # ... and runs the statement without them


@pytest.mark.parametrize("name", EXPLORE)
def test_explore_file_pasted_as_it_is_returns_rows(name: str, shipped: Shipped) -> None:
    params, text = paste(REGISTRY.get(name).path.read_text(encoding="utf-8"))
    assert text.removesuffix(";").rstrip() == paste(REGISTRY.get(name).text)[1]  # same statement
    rows = shipped.graph.read_text(text, shipped.values(params))
    assert rows, f"{name} returns no row on the shipped knowledge base"


@pytest.mark.parametrize("name", EXPLORE)
def test_explore_file_runs_by_name_without_its_param_lines(name: str, shipped: Shipped) -> None:
    """The service's way (and `kgs cypher explore/<name>`): the registry's statement."""
    values = shipped.values(list(REGISTRY.get(name).browser_params))
    assert shipped.graph.read(name, **values)


# -- the guide --------------------------------------------------------------------------------


def test_guide_is_served_with_every_step(guide: str) -> None:
    for slide_id, title in STEPS.items():
        assert f'id="{slide_id}"' in guide and title in guide, slide_id
    assert guide.count("<slide ") >= len(STEPS)
    assert f":play http://testserver.local{GUIDE_PATH}" in guide  # its own URL, to come back
    assert "{{" not in guide  # every placeholder filled in


def test_guide_answers_browsers_cors_preflight(client: TestClient[Any]) -> None:
    response = client.options(
        GUIDE_PATH,
        headers={"Origin": "http://127.0.0.1:7474", "Access-Control-Request-Method": "GET",
                 "Access-Control-Request-Headers": "pragma,cache-control"},
    )  # fmt: skip
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == "*"
    assert "GET" in response.headers["access-control-allow-methods"]
    assert response.headers["access-control-allow-headers"] == "pragma,cache-control"


def test_guide_queries_are_the_shipped_files(guide: str) -> None:
    """Each block is a registry statement's `:param` lines and text: it cannot drift."""
    blocks = [b for b in runnable_blocks(guide) if b not in BROWSER_COMMANDS]
    by_text = {s.browser_text: s.name for s in REGISTRY}
    names = [by_text.get(block) for block in blocks]
    assert None not in names, [b for b, n in zip(blocks, names, strict=True) if n is None]
    assert "graph/neighbour_candidates" in names  # the statement the graph context runs
    for step in ("explore/scope_overview", "explore/document_outline",
                 "explore/knowledge_point_graph"):  # fmt: skip
        assert step in names


def test_every_guide_query_returns_rows(guide: str, shipped: Shipped) -> None:
    blocks = [b for b in runnable_blocks(guide) if b not in BROWSER_COMMANDS]
    assert len(blocks) >= 5
    for block in blocks:
        params, text = paste(block)
        assert params, f"a guide query without ':param' lines:\n{block}"
        rows = shipped.graph.read_text(text, shipped.values(params))
        assert rows, f"no row on the shipped knowledge base:\n{block}"


# -- the local Neo4j server lets Browser fetch the guide ----------------------------------------


def test_local_server_allows_guides_from_this_machine(tmp_path: Path) -> None:
    server = LocalNeo4jServer(LocalServerSettings(home=tmp_path), user="neo4j", password="x")
    server._write_config()
    conf = (tmp_path / "conf" / "neo4j.conf").read_text(encoding="utf-8").splitlines()
    setting = [line for line in conf if line.startswith("browser.remote_content_hostname_")]
    assert setting == [
        "browser.remote_content_hostname_whitelist=guides.neo4j.com,localhost,127.0.0.1"
    ]
