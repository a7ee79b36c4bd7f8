"""Step 3: the load. Every client loops over a request picked by the seeded mix (query, document
read, knowledge point read, knowledge point search, upload, delete) and an exponential think
time, and records latencies, statuses and which writes were acknowledged."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import httpx

from faults.knowledge_base import SCOPE, SENTENCES_PER_PARAGRAPH, BaseDocument
from ingest.units import document_id

UPLOAD_PARAGRAPHS = 3
ROUTES = ("query", "document", "point", "search", "upload", "delete")
SUCCESS = {"query": 200, "document": 200, "point": 200, "search": 200, "upload": 201,
           "delete": 204}  # fmt: skip
DEFAULT_MIX = "0.40,0.20,0.08,0.07,0.15,0.10"
OWN_READ_SHARE = 0.2  # document reads that read the client's own acknowledged upload
REQUEST_TIMEOUT_S = 120.0  # generous, but a timeout counts as an error
MAX_REQUESTS = 200_000
ERROR_SAMPLES = 8


@dataclass(frozen=True)
class Upload:
    marker: str
    path: str  # in the scope
    source: str

    @property
    def id(self) -> str:
        return document_id(SCOPE, f"{SCOPE}/{self.path}")

    @property
    def point_id(self) -> str:
        return f"up-{self.marker}"


@dataclass
class Results:
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    error_samples: list[str] = field(default_factory=list)
    acked_uploads: dict[str, Upload] = field(default_factory=dict)  # by document id
    acked_deletes: set[str] = field(default_factory=set)
    unacked_uploads: dict[str, Upload] = field(default_factory=dict)
    unacked_deletes: set[str] = field(default_factory=set)
    own_read_misses: int = 0  # an acknowledged upload that read 404 before its delete
    sent: int = 0


def upload_source(marker: str, target: BaseDocument, pool: list[str], rng: random.Random) -> str:
    lines = ["---", f"id: up-{marker}", f"title: Upload {marker}", f"aliases: [{marker}]",
             "kind: component", "relations:",
             f"  - {{type: REFERENCES, target: {target.point_id}, confidence: 0.7}}",
             "---", "", f"# Upload {marker}", ""]  # fmt: skip
    for number in range(UPLOAD_PARAGRAPHS):
        body = " ".join(rng.sample(pool, SENTENCES_PER_PARAGRAPH))
        lines += [f"The {marker} record refers to the {target.title}. {body}" if number == 0
                  else body, ""]  # fmt: skip
    return "\n".join(lines)


@dataclass
class Client:
    number: int
    rng: random.Random
    mine: list[Upload] = field(default_factory=list)  # acknowledged, not deleted
    uploads: int = 0


async def client_loop(
    http: httpx.AsyncClient, client: Client, docs: list[BaseDocument], pool: list[str],
    run_id: str, mix: list[float], think_s: float, deadline: float, results: Results,
) -> None:  # fmt: skip
    rng = client.rng
    await asyncio.sleep(rng.uniform(0, think_s))  # clients do not start in lock-step
    while time.monotonic() < deadline and results.sent < MAX_REQUESTS:
        results.sent += 1
        kind = rng.choices(ROUTES, weights=mix)[0]
        if kind == "delete" and not client.mine:
            kind = "upload"  # nothing of ours to delete yet
        started = time.perf_counter()
        upload: Upload | None = None
        target: str | None = None
        own_read = False
        try:
            if kind == "query":
                doc = rng.choice(docs)
                response = await http.post("/v1/query", params={"trace": "false"},
                                           json={"query": f"what is the {doc.title}?",
                                                 "scope": SCOPE})  # fmt: skip
            elif kind == "document":
                own_read = bool(client.mine) and rng.random() < OWN_READ_SHARE
                target = rng.choice(client.mine).id if own_read else rng.choice(docs).id
                response = await http.get(f"/v1/documents/{target}")
            elif kind == "point":
                response = await http.get(f"/v1/knowledge-points/{rng.choice(docs).point_id}",
                                          params={"scope": SCOPE})  # fmt: skip
            elif kind == "search":
                response = await http.get("/v1/knowledge-points", params={
                    "q": rng.choice(docs).title, "scope": SCOPE, "limit": 5})  # fmt: skip
            elif kind == "upload":
                client.uploads += 1
                marker = f"mk{run_id}c{client.number:02d}n{client.uploads:04d}"
                upload = Upload(
                    marker,
                    f"uploads/{marker}.md",
                    upload_source(marker, rng.choice(docs), pool, rng),
                )
                response = await http.post(
                    "/v1/documents", data={"scope": SCOPE, "path": upload.path},
                    files={"file": (f"{marker}.md", upload.source.encode(), "text/markdown")},
                )  # fmt: skip
            else:
                upload = client.mine.pop(rng.randrange(len(client.mine)))
                target = upload.id
                response = await http.delete(f"/v1/documents/{target}")
            status = str(response.status_code)
            detail = f"{kind} {status} {response.text[:200]}"
        except httpx.TimeoutException as error:
            status, detail = "timeout", f"{kind} timeout: {type(error).__name__}"
        except httpx.HTTPError as error:
            status, detail = "transport", f"{kind} {type(error).__name__}: {error}"
        results.latencies_ms[kind].append((time.perf_counter() - started) * 1000)
        results.statuses[kind][status] += 1
        ok = status == str(SUCCESS[kind])
        if kind == "upload" and upload is not None:
            if status.startswith("2"):
                results.acked_uploads[upload.id] = upload
                client.mine.append(upload)
            else:
                results.unacked_uploads[upload.id] = upload
        elif kind == "delete" and target is not None:
            if status.startswith("2"):
                results.acked_deletes.add(target)
            else:
                results.unacked_deletes.add(target)
        elif own_read and status == "404":
            results.own_read_misses += 1
        if not ok and len(results.error_samples) < ERROR_SAMPLES:
            results.error_samples.append(detail)
        await asyncio.sleep(rng.expovariate(1 / think_s) if think_s > 0 else 0)
