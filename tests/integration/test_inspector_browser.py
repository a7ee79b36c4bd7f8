"""The evidence inspector at `/`, end to end in a real headless Chromium (Debian's, driven by
Playwright): ask a question, read the answer and the evidence status in English and Chinese,
open a citation and find its quote highlighted at its exact offsets, see the neighbours the
trace names in the graph window, copy a statement for Neo4j Browser, find the answer among
the recent ones; no console errors on the way.

The API runs in this process (uvicorn in a thread) over the session's Neo4j and model, in
development mode (no key). Set KGS_SCREENSHOT_DIR to keep screenshots of the views."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import Browser, Page

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiSettings, Settings, project_root
from tests.integration.conftest import delete_scope
from tests.integration.served import serve_app

QUESTION = "what is water glass?"
WAIT_MS = 60_000  # an answer on 2 busy cores, then its statements and records


@pytest.fixture(scope="module")
def served(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, str]]:  # fmt: skip
    scope = f"inspector-{int(time.time())}"
    root = tmp_path_factory.mktemp("inspector-kb")
    shutil.copytree(project_root() / "knowledge_base" / "waterglass", root / scope)
    assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).added
    dev = msgspec.structs.replace(settings, api=ApiSettings(dev_mode=True))
    resources = AppResources(dev, graph=graph, embedder=embedder)
    try:
        with serve_app(dev, resources) as url:
            yield url, scope
    finally:
        delete_scope(graph, scope)


def _exported(url: str, trace_id: str) -> dict[str, Any]:
    """The answer's export bundle, once the background writer has stored its record (the first
    write after a server start plans its statements, and may come after the page shows)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        response = httpx.get(f"{url}/v1/answers/{trace_id}/export", timeout=30)
        if response.status_code != 404 or time.monotonic() > deadline:
            assert response.status_code == 200, response.text
            bundle: dict[str, Any] = response.json()
            return bundle
        time.sleep(0.2)


def _shot(page: Page, name: str) -> None:
    if folder := os.environ.get("KGS_SCREENSHOT_DIR"):
        page.screenshot(path=str(Path(folder) / f"inspector-{name}.png"))


def test_the_inspector_shows_an_answer_beside_its_evidence(
    served: tuple[str, str], browser: Browser
) -> None:
    url, scope = served
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.goto(f"{url}/?scope={scope}")
    page.fill("#question", QUESTION)
    page.keyboard.press("Enter")  # the form submits from the keyboard
    page.wait_for_selector("#cypher li", timeout=WAIT_MS)
    trace_id = page.get_attribute("#answer", "data-trace-id")
    assert trace_id
    stored: dict[str, Any] = httpx.get(f"{url}/v1/traces/{trace_id}", timeout=30).json()
    status = page.get_attribute("#status dd[data-field=status]", "data-value")
    assert page.inner_text("#answer").strip() and status == stored["status"] == "answered"
    assert page.inner_text("#status dt >> nth=2") == "Evidence"
    assert page.inner_text("#status dd[data-field=status]") == "answered"
    _shot(page, "answer")

    page.select_option("#lang", "zh")  # the labels follow the switch
    page.wait_for_function("document.documentElement.lang === 'zh'")
    assert page.inner_text("#status dt >> nth=2") == "证据"
    assert page.inner_text("#status dd[data-field=status]") == "已回答"
    assert page.inner_text("#answer-title") == "回答"
    page.select_option("#lang", "en")

    bundle = _exported(url, trace_id)
    page.click(".citation >> nth=0")
    page.wait_for_selector("#highlight", timeout=WAIT_MS)
    assert page.inner_text("#highlight") == bundle["citations"][0]["quote"]
    _shot(page, "citation")

    graph = stored["trace"]["graphContext"]
    named = {n["id"] for n in (*graph["predecessors"], *graph["successors"])}
    ids = "items => items.map(e => e.dataset.neighbour)"
    listed = set(page.eval_on_selector_all("#neighbours li", ids))
    assert named and listed == named

    first = page.inner_text("#cypher li >> nth=0 >> pre")
    page.click("#cypher button.copy >> nth=0")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == first and copied.startswith(":param ") and copied.endswith(";")

    deadline = time.monotonic() + WAIT_MS / 1000  # the record is written after the answer
    while not page.query_selector(f"#recent li[data-trace='{trace_id}']"):
        assert time.monotonic() < deadline, "the answer never appeared among the recent ones"
        page.click("#recent-refresh")
        page.wait_for_timeout(300)
    _shot(page, "recent")
    assert problems == []
    context.close()


def test_a_question_without_a_scope_is_answered_and_an_upload_asks_for_one(
    served: tuple[str, str], browser: Browser
) -> None:
    """The scope field is optional, as in the API: the best readable scope answers and the
    status names it; only an upload needs a scope, and says so instead of sending."""
    url, _ = served
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(url)
    assert page.get_attribute("#scope", "required") is None
    page.fill("#question", QUESTION)
    page.keyboard.press("Enter")
    page.wait_for_selector("#cypher li", timeout=WAIT_MS)
    trace_id = page.get_attribute("#answer", "data-trace-id")
    stored: dict[str, Any] = httpx.get(f"{url}/v1/traces/{trace_id}", timeout=30).json()
    chosen = stored["trace"]["scopeChoice"]["chosen"]
    assert page.get_attribute("#status dd[data-field=scope]", "data-value") == chosen
    page.set_input_files("#upload-files", [{"name": "note.md", "mimeType": "text/markdown",
                                            "buffer": b"# Note\n\nA note.\n"}])  # fmt: skip
    page.click("#upload")
    page.wait_for_selector("#uploads li.refused", timeout=WAIT_MS)
    assert "scope" in page.inner_text("#uploads").lower()
    context.close()
