"""Debian's chromium driven by Playwright for the inspector's browser tests: the browser, and a
page that collects the console errors and uncaught exceptions it logs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, Page, sync_playwright

__all__ = ["ask_in_page", "launch_chromium", "watched_page"]


@contextmanager
def launch_chromium() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is installed by `make browser` (part of `make test`)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@contextmanager
def watched_page(browser: Browser, width: int, height: int) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page in its own context, and the errors it logs as they come."""
    context = browser.new_context(viewport={"width": width, "height": height})
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda error: problems.append(str(error)))
    yield opened, problems
    context.close()


def ask_in_page(page: Page, question: str, timeout_ms: float) -> str:
    """Ask in the page; the answer's traceId once it and its statements are shown."""
    before = page.get_attribute("#answer", "data-trace-id")
    page.fill("#question", question)
    page.click("#ask")
    page.wait_for_function(
        "before => document.getElementById('answer').dataset.traceId"
        " && document.getElementById('answer').dataset.traceId !== before"
        " && document.querySelector('#cypher li')",
        arg=before, timeout=timeout_ms,
    )  # fmt: skip
    trace_id = page.get_attribute("#answer", "data-trace-id")
    assert trace_id
    return trace_id
