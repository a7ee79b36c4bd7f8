"""The inspector's evidence view says why an answer is degraded, in a real headless Chromium
(Debian's, driven by Playwright): a conflict shows both sides with their values, places and
quotes; an answer built on an expired page, and a stored answer whose cited page changed since,
show their stale reason (the review's, the record's `staleReason` and the versions then and
now); an abstention and a partial answer show the sufficiency review's reasons and missing
terms; an LLM judge that cannot be reached shows its fallback; a 503 from the API shows a clear
"unavailable" state instead of an answer. Every answer shows its failure stages and its source
boundary; a gap answer offers *Escalate*; a citation lists its document's versions, the quoted
one marked, and the document's events of the scope's change feed. The labels follow the
language, and nothing logs a console error.

Seeded as a user would: small Markdown pages uploaded through POST /v1/documents into a scope of
their own (two pages stating different calibration tolerances for the same gauge head, a page
marked superseded, a pump page that is later changed through the page's upload form). The API
runs in this process (uvicorn in a thread) over the session's Neo4j and model, in development
mode (no key); the judge's provider is a closed local port (KGS_LLM_*). Only the "graph
unavailable" view routes the browser's /v1/query to the API's documented 503 problem. Set
KGS_SCREENSHOT_DIR to keep inspector-state-{conflict,stale,abstained,unavailable}.png."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import Browser, FilePayload, Page, Route

from ingest.embeddings import SentenceTransformerEmbedder
from service.api.errors import NEO4J_RETRY_AFTER_S, PROBLEM_MEDIA_TYPE
from service.api.state import AppResources
from service.db import Graph
from service.escalations import ESCALATABLE
from service.question.runner import default_llm
from service.settings import ApiSettings, Settings
from tests.integration.browser import ask_in_page, watched_page
from tests.integration.conftest import delete_scope
from tests.integration.served import free_port, serve_app

SCOPE = f"states-ui-{uuid.uuid4().hex[:8]}"
WAIT_MS = 60_000  # an answer on 2 busy cores, then its statements
RECORDS_S = 60.0  # the record writer stores an answer (a background thread)

DESIGN = """---
id: gauge-head-design-sheet
title: Gauge head design sheet
relations:
  - {type: CONTRASTS_WITH, target: gauge-head-field-report, confidence: 0.85}
---

# Gauge head design sheet

The gauge head design sheet specifies the LX-40 gauge head used on the pump housing line.

## Acceptance figure

The calibration tolerance is +/-0.10 mm.

The design office derives the figure from the bore fit of the pump housing.
"""
FIELD = """---
id: gauge-head-field-report
title: Gauge head field report
relations:
  - {type: CONTRASTS_WITH, target: gauge-head-design-sheet, confidence: 0.85}
---

# Gauge head field report

The gauge head field report describes how the LX-40 gauge head is calibrated on the shop floor.

## Acceptance figure on the floor

The calibration tolerance is +/-0.50 mm.

Inspectors apply this figure when they sign off a calibration run.
"""
FAN = """---
id: rack-fan-curve
title: Rack fan curve
updated: 2023-03-01
validUntil: 2024-01-01
supersededBy: rack-fan-curve-v2
---

# Rack fan curve

The rack controller fan runs at 30 percent below 40 °C and ramps linearly to full speed at 70 °C.
"""
PUMP = """---
id: coolant-pump-seal
title: Coolant pump seal
---

# Coolant pump seal

The seal of the P-20 coolant pump is replaced every {hours} operating hours.

The technician drains the coolant loop before the pump housing is opened.
"""
PAGES = {
    "design-sheet.md": DESIGN,
    "field-report.md": FIELD,
    "rack-fan.md": FAN,
    "pump-seal.md": PUMP.format(hours="2,000"),
}
CONFLICT_Q = "what is the calibration tolerance of the LX-40 gauge head?"
STALE_Q = "what is the fan curve of the rack controller?"
ABSTAIN_Q = "how hot is a pizza oven?"
PARTIAL_Q = (
    "how often is the P-20 coolant pump seal replaced and what torque do the housing bolts need?"
)
PUMP_Q = "how often is the P-20 coolant pump seal replaced?"
UNAVAILABLE = (  # the API's answer while Neo4j is away (service/api/errors.py, docs/api.md)
    "Neo4j is unavailable; the service reconnects by itself when it returns"
)


@pytest.fixture(scope="module")
def served(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[str]:
    dev = msgspec.structs.replace(settings, api=ApiSettings(dev_mode=True, answer_processes=0))
    try:
        with serve_app(dev, AppResources(dev, graph=graph, embedder=embedder)) as url:
            with httpx.Client(base_url=url, timeout=120) as client:
                for name, text in PAGES.items():
                    page = {"file": (name, text.encode(), "text/markdown")}
                    upload = client.post("/v1/documents", data={"scope": SCOPE}, files=page)
                    assert upload.status_code == 201, upload.text
            yield url
    finally:
        delete_scope(graph, SCOPE)


@pytest.fixture
def page(browser: Browser, served: str) -> Iterator[tuple[Page, list[str]]]:
    """The page on the scope, and the console errors and page errors it logs."""
    with watched_page(browser, 1200, 900) as (opened, problems):  # the screenshots' size
        opened.goto(f"{served}/?scope={SCOPE}")
        yield opened, problems


def _shot(page: Page, state: str) -> None:
    if folder := os.environ.get("KGS_SCREENSHOT_DIR"):
        page.screenshot(path=str(Path(folder) / f"inspector-state-{state}.png"))


def _ask(page: Page, question: str) -> str:
    return ask_in_page(page, question, WAIT_MS)


def _get(url: str, route: str, **params: str) -> dict[str, Any]:
    response = httpx.get(f"{url}{route}", params=params, timeout=60)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _panel(page: Page, state: str) -> str:
    """The text of one state's panel, which must be shown."""
    selector = f"#states [data-state={state}]"
    assert page.is_visible(selector), f"no {state} panel"
    return " ".join(page.inner_text(selector).split())


def _states(page: Page) -> list[str]:
    return _data(page, "#states .state", "state")


def _data(page: Page, selector: str, name: str) -> list[str]:
    """The data-NAME of every element the selector finds."""
    values: list[str] = page.eval_on_selector_all(selector, f"s => s.map(e => e.dataset.{name})")
    return values


def _items(page: Page, selector: str) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(selector, "s => s.map(e => e.innerText)")
    return [" ".join(text.split()) for text in texts]


def _to_chinese(page: Page) -> None:
    page.select_option("#lang", "zh")
    page.wait_for_function("document.documentElement.lang === 'zh'")


def _to_english(page: Page) -> None:
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")


def _offers_escalation(page: Page, stored: dict[str, Any]) -> None:
    assert stored["status"] in ESCALATABLE
    assert page.is_visible("#escalate"), f"no Escalate on a {stored['status']} answer"


def _wait(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + RECORDS_S
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.3)


def test_a_conflict_shows_both_sides_and_a_failed_judge_its_fallback(
    served: str, page: tuple[Page, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    view, problems = page
    assert view.get_attribute("#scope", "required") is None  # the API answers without one
    trace_id = _ask(view, CONFLICT_Q)
    stored = _get(served, f"/v1/traces/{trace_id}")
    trace = stored["trace"]
    assert stored["status"] == "conflict"
    assert _states(view) == ["conflict"]  # no judge configured: no fallback

    # Both sides: each value with its page, line and quote, as the conflict fragment states.
    conflict = next(f for f in trace["ragContextPack"]["fragments"] if f["role"] == "conflict")
    values = conflict["conflictValues"]
    assert values == ["+/-0.10 mm", "+/-0.50 mm"]
    panel = _panel(view, "conflict")
    assert "The sources disagree" in panel and " ≠ ".join(values) in panel
    reasons = [r for r in trace["ragSufficiencyReview"]["reasons"] if r.startswith("conflicting")]
    assert reasons and all(reason in panel for reason in reasons)
    sides = _items(view, "#states [data-state=conflict] li.side")
    expected = [
        f"{value} · {SCOPE}/{name}:14 The calibration tolerance is {value}."
        for value, name in zip(values, ("design-sheet.md", "field-report.md"), strict=True)
    ]  # fmt: skip
    assert sides == expected

    # The failure stages and the source boundary of the trace.
    for failure in trace["ragFailureClassifications"]:
        shown = view.inner_text(f"#failure-stages li[data-stage={failure['stage']}]")
        assert failure["reason"] in shown
    boundary = trace["ragContextPack"]["sourceBoundary"]
    assert boundary == "full_document"
    assert view.get_attribute("#boundary", "data-boundary") == boundary
    assert "Source boundary: full document" in view.inner_text("#boundary")
    _offers_escalation(view, stored)
    _shot(view, "conflict")

    _to_chinese(view)
    assert view.inner_text("#states [data-state=conflict] .badge") == "存在冲突"
    assert "双方说法" in _panel(view, "conflict")
    assert "上下文组装" in view.inner_text("#failure-stages")
    assert "来源边界: 全文" in view.inner_text("#boundary")
    assert view.inner_text("#escalate") == "上报"
    _to_english(view)

    # A judge is configured but cannot be reached: the deterministic review decides, and says so.
    monkeypatch.setenv("KGS_LLM_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("KGS_LLM_TIMEOUT_S", "2")
    default_llm.cache_clear()
    try:
        judged = _get(served, f"/v1/traces/{_ask(view, CONFLICT_Q)}")["trace"]
    finally:
        default_llm.cache_clear()  # the next answers read their own environment
    failure = judged["ragSufficiencyReview"]["judge"]["failure"]
    assert failure.startswith("llm_judge_failed:")
    assert _states(view) == ["conflict", "judge"]
    judge = _panel(view, "judge")
    assert "The LLM judge failed; the deterministic review decided." in judge and failure in judge
    assert "the LLM judge failed" in view.inner_text("#failure-stages li[data-stage=generation]")
    _to_chinese(view)
    assert view.inner_text("#states [data-state=judge] .badge") == "评审回退"
    assert problems == []


def test_an_abstention_and_a_partial_answer_say_why(
    served: str, page: tuple[Page, list[str]]
) -> None:
    view, problems = page
    stored = _get(served, f"/v1/traces/{_ask(view, ABSTAIN_Q)}")
    review = stored["trace"]["ragSufficiencyReview"]
    assert stored["status"] == "abstained" and review["status"] == "insufficient"
    assert _states(view) == ["abstained"]
    assert "No answer: the evidence found does not answer the question." in (
        _panel(view, "abstained")
    )
    reasons = _items(view, "#states [data-state=abstained] [data-field=reasons] li")
    assert reasons == review["reasons"] and any(r.startswith("answerability") for r in reasons)
    missing = view.inner_text("#states [data-state=abstained] [data-field=missingTerms]")
    assert missing == f"Missing terms: {', '.join(review['missingTerms'])}"
    assert {"pizza", "oven"} <= set(review["missingTerms"])
    stages = _data(view, "#failure-stages li", "stage")
    assert stages == [f["stage"] for f in stored["trace"]["ragFailureClassifications"]]
    assert "retrieval" in stages
    _offers_escalation(view, stored)
    _shot(view, "abstained")
    _to_chinese(view)
    assert view.inner_text("#states [data-state=abstained] .badge") == "拒答"
    assert view.inner_text("#failure-stages li[data-stage=retrieval] strong") == "检索"
    _to_english(view)

    stored = _get(served, f"/v1/traces/{_ask(view, PARTIAL_Q)}")
    review = stored["trace"]["ragSufficiencyReview"]
    assert stored["status"] == "partial"
    assert _states(view) == ["partial"]
    panel = _panel(view, "partial")
    assert "Partly answered" in panel and ", ".join(review["missingTerms"]) in panel
    assert "torque" in review["missingTerms"]
    _offers_escalation(view, stored)
    assert problems == []


def test_stale_evidence_and_a_changed_page_with_its_versions_and_changes(
    served: str, page: tuple[Page, list[str]]
) -> None:
    view, problems = page
    # Stale when asked: the cited page is superseded (its front matter says by what).
    stored = _get(served, f"/v1/traces/{_ask(view, STALE_Q)}")
    review = stored["trace"]["ragSufficiencyReview"]
    assert stored["status"] == "stale" and review["stale"] == [f"{SCOPE}/rack-fan.md"]
    assert _states(view) == ["stale"]
    panel = _panel(view, "stale")
    reason = f"stale_evidence: {SCOPE}/rack-fan.md is superseded by rack-fan-curve-v2"
    assert "A cited page is expired or superseded." in panel and reason in panel
    _offers_escalation(view, stored)

    # Stale since: an answer, then a changed version of the page it cites, uploaded in the page.
    trace_id = _ask(view, PUMP_Q)
    assert view.get_attribute("#status dd[data-field=status]", "data-value") == "answered"
    assert _states(view) == [] and not view.is_visible("#escalate")
    _wait(lambda: any(item["traceId"] == trace_id
                      for item in _get(served, "/v1/answers", scope=SCOPE)["items"]),
          "the answer was not recorded")  # fmt: skip
    changed = FilePayload(name="pump-seal.md", mimeType="text/markdown",
                          buffer=PUMP.format(hours="1,500").encode())  # fmt: skip
    view.set_input_files("#upload-files", [changed])
    view.click("#upload")
    view.wait_for_selector("#uploads li.uploaded", timeout=WAIT_MS)
    assert "pump-seal.md: updated, version 2" in view.inner_text("#uploads")

    row = f"#recent li[data-trace='{trace_id}'] button"
    view.click("#recent-refresh")
    view.wait_for_selector(row, timeout=WAIT_MS)
    view.click(row)
    view.wait_for_selector("#states [data-state=changed]", timeout=WAIT_MS)
    bundle = _get(served, f"/v1/answers/{trace_id}/export")
    assert bundle["stale"] is True and bundle["staleReason"] == "document changed"
    panel = _panel(view, "changed")
    assert "A cited document changed since this answer." in panel
    assert bundle["staleReason"] in panel
    assert f"{SCOPE}/pump-seal.md: version 1 cited, now version 2" in panel
    assert not view.is_visible("#escalate")  # a record offers none: ask again to escalate

    # The citation: the quoted version's text, the document's versions, its feed events.
    citation = bundle["citations"][0]
    assert citation["documentVersion"] == 1 and "2,000" in citation["quote"]
    view.click(".citation >> nth=0")
    view.wait_for_selector("#versions li", timeout=WAIT_MS)
    assert view.inner_text("#highlight") == citation["quote"]
    history = _get(served, f"/v1/documents/{citation['documentId']}/versions")
    columns = (_data(view, "#versions li", name) for name in ("version", "quoted", "head"))
    listed = list(zip(*columns, strict=True))
    assert listed == [(str(v["version"]), str(v["version"] == 1).lower(), str(v["head"]).lower())
                      for v in history["items"]]  # fmt: skip
    assert [v["version"] for v in history["items"]] == [2, 1]
    versions = _items(view, "#versions li")
    assert versions[0].startswith("v2 ·") and versions[0].endswith("· head")
    assert versions[1].startswith("v1 ·") and versions[1].endswith("· quoted by this citation")
    assert f"cited by {history['items'][1]['citedBy']} answers" in versions[1]
    feed = _get(served, "/v1/changes", scope=SCOPE)["items"]
    mine = [e for e in reversed(feed) if e["documentId"] == citation["documentId"]]
    assert [e["kind"] for e in mine] == ["updated", "added"]
    assert _data(view, "#changes li", "seq") == [str(e["seq"]) for e in mine]
    changes = _items(view, "#changes li")
    assert changes[0].startswith(f"#{mine[0]['seq']} · updated · v1 → v2 ·")
    assert changes[1].startswith(f"#{mine[1]['seq']} · added · – → v1 ·")
    bound = view.inner_text("#changes-bound")
    assert bound == f"from the newest {len(feed)} events of scope {SCOPE}"
    _shot(view, "stale")

    _to_chinese(view)  # the labels follow; the citation is opened again
    assert view.inner_text("#states [data-state=changed] .badge") == "证据过期"
    assert f"{SCOPE}/pump-seal.md：引用的是第 1 版，现为第 2 版" in _panel(view, "changed")
    view.click(".citation >> nth=0")
    view.wait_for_selector("#changes li", timeout=WAIT_MS)
    assert _items(view, "#versions li")[1].endswith("· 本引用所引的版本")
    assert " · 更新 · " in _items(view, "#changes li")[0]
    assert "版本" in _items(view, "#source h3")
    assert problems == []


def test_a_graph_outage_shows_an_unavailable_state_not_an_answer(
    served: str, page: tuple[Page, list[str]]
) -> None:
    view, problems = page
    _ask(view, PUMP_Q)  # an answer first: the outage must not leave it on screen
    problem_trace = f"t_{uuid.uuid4().hex[:16]}"

    def outage(route: Route) -> None:  # what the API answers while Neo4j is away
        route.fulfill(status=503, content_type=PROBLEM_MEDIA_TYPE,
                      headers={"Retry-After": str(NEO4J_RETRY_AFTER_S)},
                      body=json.dumps({"status": 503, "title": "Service Unavailable",
                                       "detail": UNAVAILABLE,
                                       "traceId": problem_trace}))  # fmt: skip

    view.route("**/v1/query", outage)
    view.fill("#question", PUMP_Q)
    view.click("#ask")
    view.wait_for_selector("#states [data-state=unavailable]", timeout=WAIT_MS)
    assert _states(view) == ["unavailable"]
    panel = _panel(view, "unavailable")
    assert "The service cannot answer now" in panel and f"503 · {UNAVAILABLE}" in panel
    assert f"Retry: in {NEO4J_RETRY_AFTER_S} s" in panel and problem_trace in panel
    assert view.inner_text("#answer") == ""
    assert view.get_attribute("#answer", "data-trace-id") is None
    assert _items(view, "#citations li") == [] and _items(view, "#cypher li") == []
    assert not view.is_visible("#error") and not view.is_visible("#escalation")
    _shot(view, "unavailable")

    _to_chinese(view)
    assert view.inner_text("#states [data-state=unavailable] .badge") == "服务不可用"
    assert f"{NEO4J_RETRY_AFTER_S} 秒后" in _panel(view, "unavailable")
    _to_english(view)

    view.unroute("**/v1/query")  # Neo4j is back: the next question is answered
    _ask(view, PUMP_Q)
    assert _states(view) == [] and view.inner_text("#answer").strip()
    # The browser reports the refused request itself; nothing else may log an error.
    assert [p for p in problems if "status of 503" not in p] == []
