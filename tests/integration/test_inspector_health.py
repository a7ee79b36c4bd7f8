"""The inspector's health pane in a real headless Chromium (Debian's, driven by Playwright): the
scope's health report (docs/health.md) lists both contradictions of a scope built from two
conflict probes, with their subjects, values and quoted sides, one page at a time ("More"
reads the next); a consistent scope lists none; a page's hostile markup shows as text and
never runs; the labels follow the language; no console errors on the way.

The API runs in this process (uvicorn in a thread) in development mode (no key), with one
finding per page (KGS_HEALTH_PAGE_SIZE=1) so that paging shows. No embeddings: the report reads
the Fact nodes ingest writes. Set KGS_SCREENSHOT_DIR to keep a screenshot of the pane."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec
import pytest
from playwright.sync_api import Browser, Page

from ingest.pipeline import IngestOptions, ingest
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiSettings, HealthSettings, Settings, project_root
from tests.integration.browser import watched_page
from tests.integration.conftest import delete_scope
from tests.integration.served import serve_app

PREFIX = f"hui{uuid.uuid4().hex[:6]}-"
MERGED = f"{PREFIX}merged"  # two probes' pages in one scope: two contradictions
CLEAN = f"{PREFIX}clean"  # condition-qualified facts: no contradiction
HOSTILE = f"{PREFIX}hostile"  # a contradiction stated beside markup that must stay text
WAIT_MS = 30_000
PAYLOAD = '<img src=x onerror="window.__pwned=1">'
HOSTILE_PAGE = f"""---
id: hostile-port-note
title: Port note {PAYLOAD}
kind: reference
---

# Port note {PAYLOAD}

The port note is the network note for the gateway listener, written by someone who likes markup.

## Listener {PAYLOAD}

The service port is 443 {PAYLOAD}.

The listener forwards decrypted requests to the gateway workers over the loopback interface.

The service port is 8443.
"""


@pytest.fixture(scope="module")
def served(
    settings: Settings, graph: Graph, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    root = tmp_path_factory.mktemp("inspector-health-kb")
    for probe in ("ragconflict", "ragdateconflict"):
        shutil.copytree(project_root() / "knowledge_base" / probe, root / MERGED,
                        dirs_exist_ok=True)  # fmt: skip
    shutil.copytree(project_root() / "knowledge_base" / "ragdependencyqualifier", root / CLEAN)
    (root / HOSTILE).mkdir()
    (root / HOSTILE / "port-note.md").write_text(HOSTILE_PAGE, encoding="utf-8")
    try:
        assert ingest(graph, None, root, IngestOptions(), settings.ingest).added
        dev = msgspec.structs.replace(
            settings, api=ApiSettings(dev_mode=True, answer_processes=0),
            health=HealthSettings(page_size=1),
        )  # fmt: skip
        with serve_app(dev, AppResources(dev, graph=graph)) as url:
            yield url
    finally:
        for scope in (MERGED, CLEAN, HOSTILE):
            delete_scope(graph, scope)


@pytest.fixture
def page(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page, with the console errors and uncaught exceptions it logs."""
    with watched_page(browser, 1400, 1000) as (opened, problems):
        yield opened, problems


def _check(page: Page, url: str, scope: str) -> None:
    page.goto(f"{url}/?scope={scope}")
    page.click("#health-check")
    page.wait_for_selector("#health-contradictions", timeout=WAIT_MS)


def _subjects(page: Page) -> list[str]:
    return [
        subject.inner_text()
        for subject in page.query_selector_all("#health-contradictions li.contradiction .subject")
    ]


def test_the_pane_lists_the_contradictions_page_by_page(
    served: str, page: tuple[Page, list[str]]
) -> None:
    view, problems = page
    _check(view, served, MERGED)
    section = "#health-contradictions"
    assert view.get_attribute(section, "data-count") == "1"
    assert view.inner_text(f"{section} h3") == "Contradictions (1+)"
    assert _subjects(view) == ["release date"]  # none cited: ranked by subject key
    for name in ("expiredPages", "undescribedPoints", "danglingRelations", "nearDuplicates",
                 "openGaps"):  # fmt: skip
        assert view.query_selector(f"#health-{name} h3"), name

    view.click(f"{section} button.more")
    view.wait_for_selector(f"{section}[data-count='2']", timeout=WAIT_MS)
    assert not view.query_selector(f"{section} button.more")  # the last page
    assert view.inner_text(f"{section} h3") == "Contradictions (2)"
    assert _subjects(view) == ["release date", "calibration tolerance"]

    report = httpx.get(f"{served}/v1/scopes/{MERGED}/health/contradictions?limit=10", timeout=30)
    items = report.json()["items"]
    assert [item["subject"] for item in items] == _subjects(view)
    for index, item in enumerate(items):
        shown = view.locator(f"{section} li.contradiction").nth(index)
        text = shown.inner_text()
        assert all(v in text for v in item["values"]), (item["values"], text)
        assert shown.locator("li.side").count() == len(item["sides"])
        for side, listed in zip(item["sides"], shown.locator("li.side").all(), strict=True):
            assert f"{side['path']}:{side['line']} (v{side['version']})" in listed.inner_text()
            assert listed.locator("blockquote").inner_text() == side["quote"]
    pane = view.inner_text("#health-pane")
    for value in ("±0.10 mm", "±0.50 mm", "2026-07-01", "2026-08-15"):
        assert value in pane
    if folder := os.environ.get("KGS_SCREENSHOT_DIR"):
        view.screenshot(path=str(Path(folder) / "inspector-health.png"), full_page=True)

    view.select_option("#lang", "zh")  # the labels follow the switch
    view.wait_for_function("document.documentElement.lang === 'zh'")
    assert view.inner_text(f"{section} h3") == "矛盾 (2)"
    assert view.inner_text("#health-check") == "检查范围健康"
    assert problems == []


def test_a_consistent_scope_lists_no_contradiction(
    served: str, page: tuple[Page, list[str]]
) -> None:
    view, problems = page
    _check(view, served, CLEAN)
    assert view.get_attribute("#health-contradictions", "data-count") == "0"
    assert view.inner_text("#health-contradictions h3") == "Contradictions (0)"
    assert not view.query_selector("#health-contradictions button.more")
    assert problems == []


def test_hostile_markup_in_a_page_shows_as_text(served: str, page: tuple[Page, list[str]]) -> None:
    view, problems = page
    _check(view, served, HOSTILE)
    assert _subjects(view) == ["service port"]
    pane = view.inner_text("#health-pane")
    assert "443" in pane and "8443" in pane
    assert PAYLOAD in pane  # the quote keeps the markup, as characters
    assert view.query_selector_all("#health-pane img") == []
    view.wait_for_timeout(300)  # an injected image would have failed to load by now
    assert view.evaluate("typeof window.__pwned") == "undefined"
    assert problems == []


def test_the_pane_needs_a_scope(served: str, page: tuple[Page, list[str]]) -> None:
    view, problems = page
    view.goto(served)
    view.click("#health-check")
    assert view.is_visible("#error")
    assert view.inner_text("#error") == "Name the scope to check."
    assert view.inner_text("#health") == ""
    assert problems == []
