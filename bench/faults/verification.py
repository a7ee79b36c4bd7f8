"""Step 5: after the load, every acknowledged upload reads back whole and findable, every
acknowledged delete is gone, every unacknowledged write is wholly present or wholly absent; then
this run's uploads are deleted (step 7)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import httpx

from faults.knowledge_base import SCOPE
from faults.workload import Results, Upload
from ingest.markdown import parse_markdown

VERIFY_CONCURRENCY = 8  # requests at once while verifying and cleaning up
VERIFY_TIMEOUT_S = 600.0  # the whole verification
PAGE_SIZE = 200  # documents per listing page (the API's maximum)
MAX_PAGES = 500  # listing pages read at most (100,000 documents)


@dataclass
class Verdict:
    uploads_verified: int = 0
    uploads_failed: list[str] = field(default_factory=list)
    deletes_verified: int = 0
    deletes_failed: list[str] = field(default_factory=list)
    unacked: Counter[str] = field(default_factory=Counter)  # "upload present", "delete half", ...
    half: list[str] = field(default_factory=list)


def expected_paragraphs(upload: Upload) -> list[str]:
    return [b.text for b in parse_markdown(upload.source).blocks]


async def check_upload(http: httpx.AsyncClient, upload: Upload) -> str | None:
    """None when the upload is wholly there and findable; else what is wrong."""
    response = await http.get(f"/v1/documents/{upload.id}")
    if response.status_code != 200:
        return f"{upload.marker}: GET {response.status_code}"
    paragraphs = response.json()["paragraphs"]
    texts = [p["text"] for p in paragraphs]
    if texts != expected_paragraphs(upload):
        return f"{upload.marker}: {len(texts)} paragraphs differ from the text sent"
    if any(upload.source[p["startOffset"] : p["endOffset"]] != p["text"] for p in paragraphs):
        return f"{upload.marker}: offsets do not index the text sent"
    found = await http.get("/v1/knowledge-points",
                           params={"q": upload.marker, "scope": SCOPE, "limit": 5})  # fmt: skip
    if upload.point_id not in [m["id"] for m in found.json().get("items", [])]:
        return f"{upload.marker}: name search does not find {upload.point_id}"
    point = await http.get(f"/v1/knowledge-points/{upload.point_id}", params={"scope": SCOPE})
    if upload.id not in [d["id"] for d in point.json().get("documents", [])]:
        return f"{upload.marker}: its knowledge point does not list the document"
    return None


async def check_deleted(http: httpx.AsyncClient, upload: Upload, listed: set[str]) -> str | None:
    response = await http.get(f"/v1/documents/{upload.id}")
    if response.status_code != 404:
        return f"{upload.marker}: GET {response.status_code} after an acknowledged delete"
    if upload.id in listed:
        return f"{upload.marker}: still in the listing"
    found = await http.get("/v1/knowledge-points",
                           params={"q": upload.marker, "scope": SCOPE, "limit": 5})  # fmt: skip
    if upload.point_id in [m["id"] for m in found.json().get("items", [])]:
        return f"{upload.marker}: its knowledge point is still found"
    return None


async def presence(http: httpx.AsyncClient, upload: Upload) -> str:
    """'present' (every paragraph), 'absent', or 'half' (anything in between)."""
    response = await http.get(f"/v1/documents/{upload.id}")
    if response.status_code == 404:
        return "absent"
    if response.status_code == 200 and len(response.json()["paragraphs"]) == len(
        expected_paragraphs(upload)
    ):
        return "present"
    return "half"


async def listing(http: httpx.AsyncClient) -> set[str]:
    ids: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {"scope": SCOPE, "limit": PAGE_SIZE}
        if cursor:
            params["cursor"] = cursor
        page = (await http.get("/v1/documents", params=params)).raise_for_status().json()
        ids.update(item["id"] for item in page["items"])
        cursor = page["nextCursor"]
        if not cursor:
            break
    return ids


async def bounded(jobs: list[Callable[[], Awaitable[None]]]) -> None:
    gate = asyncio.Semaphore(VERIFY_CONCURRENCY)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


async def verify(http: httpx.AsyncClient, results: Results) -> tuple[Verdict, set[str]]:
    """The verdict, and the ids of this run's uploads that are present now (to clean up)."""
    verdict = Verdict()
    live = {i: u for i, u in results.acked_uploads.items() if i not in results.acked_deletes
            and i not in results.unacked_deletes}  # fmt: skip
    deleted = [results.acked_uploads[i] for i in results.acked_deletes]
    listed = await listing(http)
    present: set[str] = set()

    async def acked_upload(upload: Upload) -> None:
        problem = await check_upload(http, upload)
        if problem is None and upload.id not in listed:
            problem = f"{upload.marker}: missing from the listing"
        if problem:
            verdict.uploads_failed.append(problem)
        else:
            verdict.uploads_verified += 1
        present.add(upload.id)

    async def acked_delete(upload: Upload) -> None:
        problem = await check_deleted(http, upload, listed)
        if problem:
            verdict.deletes_failed.append(problem)
        else:
            verdict.deletes_verified += 1

    async def unacked(kind: str, upload: Upload) -> None:
        state = await presence(http, upload)
        verdict.unacked[f"{kind} {state}"] += 1
        if state == "half":
            verdict.half.append(f"{kind} {upload.marker}")
        if state != "absent":
            present.add(upload.id)

    unacked_deletes = [results.acked_uploads[i] for i in results.unacked_deletes]
    jobs: list[Callable[[], Awaitable[None]]] = [
        *(partial(acked_upload, u) for u in live.values()),
        *(partial(acked_delete, u) for u in deleted),
        *(partial(unacked, "upload", u) for u in results.unacked_uploads.values()),
        *(partial(unacked, "delete", u) for u in unacked_deletes),
    ]
    await asyncio.wait_for(bounded(jobs), VERIFY_TIMEOUT_S)
    return verdict, present


async def clean_up(http: httpx.AsyncClient, ids: set[str]) -> int:
    """Delete this run's uploads; the number that could not be deleted."""
    failed = 0

    async def remove(doc_id: str) -> None:
        nonlocal failed
        response = await http.delete(f"/v1/documents/{doc_id}")
        failed += response.status_code not in (204, 404)

    await bounded([partial(remove, d) for d in sorted(ids)])
    return failed
