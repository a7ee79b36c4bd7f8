"""The inspector's Operations tab in a real headless Chromium (Debian's, driven by Playwright),
over the operations API (GET /v1/ops/summary, /gaps, /failures): both charts are drawn and hold
the statuses of the answers given; the knowledge gaps list the question the pages cannot answer
(two wordings, one gap), and its *Escalate* drafts and confirms a ticket through the answer's
own escalation flow, after which the gap names that ticket; the most- and never-cited documents
are the API's; a question holding markup shows as text and never runs; the labels follow the
language; no console errors on the way.

Seeded as a user would: a copy of the kitchen knowledge base in a scope of its own, questions
asked through POST /v1/query, then GET /v1/ops/summary polled until the record writer (a
background thread) has counted them. The API runs in this process (uvicorn in a thread) over the
session's Neo4j and model, in development mode (no key). Set KGS_SCREENSHOT_DIR to keep the
tab's screenshots (inspector-ops.png, inspector-ops-zh.png)."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import Browser, Locator, Page

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.api.state import AppResources
from service.db import Graph
from service.records.rollup import GAP_STATUSES
from service.settings import ApiSettings, Settings, project_root
from tests.integration.browser import watched_page
from tests.integration.conftest import delete_scope
from tests.integration.served import serve_app

SCOPE = f"ops-ui-{uuid.uuid4().hex[:8]}"
ANSWERED = ("Why does mayonnaise stay stable for days?", "What is caramelisation?")
# The README's gap, asked twice in other words: the same key words, one gap; the newest wording
# leads it, and its answer is the one escalated.
GAP_WORDINGS = ("how hot is a pizza oven?", "Pizza oven: how hot?")
PAYLOAD = "<img src=x onerror=window.__pwned=1>"
HOSTILE = f"{PAYLOAD} which song does the head chef sing?"
WAIT_MS = 60_000  # an escalation preview or the three ops reads on 2 busy cores
RECORDS_S = 60.0  # the record writer counts the answers into the rollups

# Per dataset of a chart: its key (status or percentile), data, and how many of the canvas's
# pixels are painted in its colour (a bar drawn).
CHART_JS = """id => {
  const canvas = document.getElementById(id);
  const chart = Chart.getChart(canvas);
  if (!chart) return null;
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  const painted = (hex) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    let n = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const [pr, pg, pb, pa] = pixels.slice(i, i + 4);
      if (pr === r && pg === g && pb === b && pa === 255) n++;
    }
    return n;
  };
  return {
    width: canvas.width, height: canvas.height, labels: chart.data.labels,
    datasets: chart.data.datasets.map((d) => ({
      key: d.status || d.percentile, label: d.label, data: d.data,
      painted: painted(d.backgroundColor),
    })),
  };
}"""


@dataclass(frozen=True)
class Seeded:
    url: str
    answers: dict[str, dict[str, Any]]  # question -> the /v1/query response


def _ask(client: httpx.Client, question: str) -> dict[str, Any]:
    response = client.post("/v1/query", json={"query": question, "scope": SCOPE})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _get(url: str, route: str, **params: str) -> dict[str, Any]:
    response = httpx.get(f"{url}/v1/ops/{route}", params={"scope": SCOPE, **params}, timeout=60)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _wait_for_records(url: str, asked: int) -> None:
    """Until the record writer has counted every answer into the rollups."""
    deadline = time.monotonic() + RECORDS_S
    while _get(url, "summary")["totals"]["answers"] < asked:
        assert time.monotonic() < deadline, "the answers were not counted"
        time.sleep(0.5)


@pytest.fixture(scope="module")
def seeded(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Seeded]:  # fmt: skip
    root = tmp_path_factory.mktemp("inspector-ops-kb")
    shutil.copytree(project_root() / "knowledge_base" / "kitchen", root / SCOPE)
    try:
        assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).added
        dev = msgspec.structs.replace(settings, api=ApiSettings(dev_mode=True, answer_processes=0))
        with serve_app(dev, AppResources(dev, graph=graph, embedder=embedder)) as url:
            with httpx.Client(base_url=url, timeout=180) as client:
                answers = {q: _ask(client, q) for q in (*ANSWERED, *GAP_WORDINGS, HOSTILE)}
            for question in (*GAP_WORDINGS, HOSTILE):
                assert answers[question]["status"] in GAP_STATUSES, answers[question]["status"]
            assert answers[ANSWERED[0]]["status"] == "answered"
            _wait_for_records(url, len(answers))
            yield Seeded(url, answers)
    finally:
        delete_scope(graph, SCOPE)


@pytest.fixture
def page(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page, with the console errors and uncaught exceptions it logs."""
    with watched_page(browser, 1200, 900) as (opened, problems):  # the screenshots
        yield opened, problems


def _open_tab(page: Page, url: str, *, linked: bool = False) -> None:
    """The tab opened by a click on it, or by a link to it (?view=ops)."""
    if linked:
        page.goto(f"{url}/?scope={SCOPE}&view=ops")
    else:
        page.goto(f"{url}/?scope={SCOPE}")
        assert page.is_visible("#evidence-view") and not page.is_visible("#ops-view")
        page.click("#tab-ops")
    page.wait_for_selector("#ops-gaps tbody tr", timeout=WAIT_MS)
    assert page.is_visible("#ops-view") and not page.is_visible("#evidence-view")
    assert page.get_attribute("#tab-ops", "aria-selected") == "true"


def _chart(page: Page, canvas: str) -> dict[str, Any]:
    drawn: dict[str, Any] | None = page.evaluate(CHART_JS, canvas)
    assert drawn is not None, f"no chart on #{canvas}"
    assert drawn["width"] > 0 and drawn["height"] > 0
    return drawn


def _gap_row(page: Page, question: str) -> Locator:
    row = page.locator("#ops-gaps tbody tr", has=page.locator(".query", has_text=question))
    assert row.count() == 1, question
    return row


def _screenshot(page: Page, name: str) -> None:
    if folder := os.environ.get("KGS_SCREENSHOT_DIR"):
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(Path(folder) / name))


def test_the_operations_tab(seeded: Seeded, page: tuple[Page, list[str]]) -> None:
    view, problems = page
    _open_tab(view, seeded.url)
    summary = _get(seeded.url, "summary", bucket="day")
    gaps = _get(seeded.url, "gaps")["gaps"]

    # Answers per status: one series per status, holding the answers given, each bar drawn.
    answers = _chart(view, "ops-answers-chart")
    given = Counter(response["status"] for response in seeded.answers.values())
    shown = {d["key"]: sum(d["data"]) for d in answers["datasets"]}
    assert shown == dict(given) == summary["totals"]["byStatus"]
    assert {d["key"]: d["label"] for d in answers["datasets"]}["answered"] == "answered"
    assert all(d["painted"] > 0 for d in answers["datasets"]), answers["datasets"]
    assert len(answers["labels"]) == len(summary["buckets"])  # every day, zeros included
    totals = view.inner_text("#ops-totals")
    assert totals.startswith(f"{len(seeded.answers)} answers · answered {given['answered']}")

    # Latency: p50 and p95 per stage, as the API computed them.
    latency = _chart(view, "ops-latency-chart")
    stages = summary["latencyMs"]
    assert stages and latency["labels"] == [s["stage"] for s in stages]
    assert [d["key"] for d in latency["datasets"]] == ["p50", "p95"]
    assert latency["datasets"][0]["data"] == [s["p50"] for s in stages]
    assert latency["datasets"][1]["data"] == [s["p95"] for s in stages]
    assert latency["datasets"][1]["painted"] > 0

    # The gap: both wordings as one row, the newest leading; the questions are text.
    pizza = next(g for g in gaps if g["query"] in GAP_WORDINGS)
    assert pizza["query"] == GAP_WORDINGS[-1] and pizza["asked"] == len(GAP_WORDINGS)
    assert pizza["traceId"] == seeded.answers[GAP_WORDINGS[-1]]["traceId"]
    row = _gap_row(view, GAP_WORDINGS[-1])
    assert row.locator(".query").inner_text() == GAP_WORDINGS[-1]
    assert GAP_WORDINGS[0] in row.locator(".wordings").inner_text()
    assert row.locator(".asked").inner_text() == str(len(GAP_WORDINGS))
    assert row.get_attribute("data-trace") == pizza["traceId"]
    assert view.locator("#ops-gaps tbody tr").count() == len(gaps)

    # Markup in a question: shown as its characters, never parsed, never run.
    assert _gap_row(view, HOSTILE).locator(".query").inner_text() == HOSTILE
    assert view.query_selector_all("#ops-view img") == []
    view.wait_for_timeout(300)  # an injected image would have failed to load by now
    assert view.evaluate("typeof window.__pwned") == "undefined"

    # Documents: the API's lists; a document an answer cited is among the most cited.
    top = [d["documentId"] for d in summary["topCitedDocuments"]]
    never = [d["documentId"] for d in summary["neverCitedDocuments"]]
    listed = "li[data-document]"
    assert [li.get_attribute("data-document") for li in view.locator(f"#ops-top-cited {listed}")
            .all()] == top  # fmt: skip
    assert [li.get_attribute("data-document") for li in view.locator(f"#ops-never-cited {listed}")
            .all()] == never  # fmt: skip
    cited = {c["documentId"] for c in seeded.answers[ANSWERED[0]]["citations"]}
    assert cited and cited & set(top) and never and not cited & set(never)
    first = summary["topCitedDocuments"][0]
    assert view.locator("#ops-top-cited li").first.inner_text() == (
        f"{first['title']} ({SCOPE}) · cited by {first['citations']} answers"
    )

    # Failures: none in this scope, said so.
    failures = _get(seeded.url, "failures", bucket="day")
    count = sum(b["failures"] for b in failures["buckets"])
    assert view.inner_text("#ops-failures-total") == f"{count} failures in the window"
    assert view.locator("#ops-failures tbody tr").count() == len(failures["byStage"])
    _screenshot(view, "inspector-ops.png")

    # Escalate: the answer's flow (preview, confirm) with the gap's newest answer.
    row.locator("button.gap-escalate").click()
    view.wait_for_selector("#ops-escalation-slot #draft-content[data-draft-id]", timeout=WAIT_MS)
    assert view.is_visible("#ops-escalation-slot #draft")
    assert "escalating" in (row.get_attribute("class") or "")
    draft_id = view.get_attribute("#draft-content", "data-draft-id")
    draft = httpx.get(f"{seeded.url}/v1/escalations/drafts/{draft_id}", timeout=30).json()
    assert draft["draft"]["answerId"] == pizza["traceId"]
    assert view.inner_text("#draft-content dd[data-field=question]") == GAP_WORDINGS[-1]
    view.dblclick("#draft-confirm")  # one ticket, whatever the clicks
    view.wait_for_selector("#ticket[data-ticket-id]", timeout=WAIT_MS)
    ticket_id = view.get_attribute("#ticket", "data-ticket-id")
    assert ticket_id and view.inner_text("#ticket") == f"Ticket {ticket_id}: open"
    tickets = httpx.get(f"{seeded.url}/v1/escalations", params={"scope": SCOPE}, timeout=30)
    assert [t["ticketId"] for t in tickets.json()["items"]] == [ticket_id]

    # Refreshed, the gap names its open ticket and the summary counts it.
    view.click("#ops-refresh")
    view.wait_for_function(
        "id => [...document.querySelectorAll('#ops-gaps td.tickets')]"
        ".some((td) => td.textContent.includes(id))",
        arg=ticket_id, timeout=WAIT_MS,
    )  # fmt: skip
    assert _gap_row(view, GAP_WORDINGS[-1]).locator(".tickets").inner_text() == ticket_id
    assert "tickets opened 1, closed 0" in view.inner_text("#ops-totals")
    assert view.is_visible("#ops-escalation-slot #ticket")  # the area stays with the gap
    assert problems == []


def test_the_tab_speaks_chinese(seeded: Seeded, page: tuple[Page, list[str]]) -> None:
    view, problems = page
    _open_tab(view, seeded.url, linked=True)
    view.select_option("#lang", "zh")
    view.wait_for_function("document.documentElement.lang === 'zh'")
    assert view.inner_text("#tab-ops") == "运维" and view.inner_text("#tab-evidence") == "证据"
    for selector, text in (
        ("#ops-answers-title", "各状态的回答数"), ("#ops-latency-title", "各阶段延迟（毫秒）"),
        ("#ops-gaps-title", "主要知识缺口"), ("#ops-documents-title", "文档"),
        ("#ops-failures-title", "失败"), ("#ops-refresh", "刷新"),
    ):  # fmt: skip
        assert view.inner_text(selector) == text, selector
    labels = {d["key"]: d["label"] for d in _chart(view, "ops-answers-chart")["datasets"]}
    assert labels["answered"] == "已回答"
    assert view.inner_text("#ops-totals").startswith(f"{len(seeded.answers)} 个回答")
    row = _gap_row(view, GAP_WORDINGS[-1])
    assert row.locator("button.gap-escalate").inner_text() == "上报"
    assert "其他问法" in row.locator(".wordings").inner_text()
    assert view.locator("#ops-top-cited li").first.inner_text().endswith("个回答引用")
    _screenshot(view, "inspector-ops-zh.png")

    view.select_option("#lang", "en")  # and back
    view.wait_for_function("document.documentElement.lang === 'en'")
    assert view.inner_text("#ops-gaps-title") == "Top knowledge gaps"
    assert problems == []
