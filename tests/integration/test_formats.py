"""PDF, HTML, Word and plain text become the same graph as Markdown, and citations lead back to
the original: a folder of mixed files ingested as one scope, every PDF paragraph placed on the
page it was printed on, HTML paragraphs on their anchors, the original bytes kept by the version,
and an upload answered with the page of the quote (docs/formats.md). The fixtures are real
files printed by Chromium and LibreOffice (tests/data/formats/make_fixtures.py)."""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pypdfium2
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings, project_root
from tests.integration.conftest import delete_scope

FIXTURES = project_root() / "tests" / "data" / "formats"
PDFS = ("manual-chromium.pdf", "manual-libreoffice.pdf")
KEY = "key-formats-admin"
HEADERS = {"X-API-Key": KEY}
NOTES = "Filter notes\n============\n\nThe cartridge of the kitchen filter was replaced in March.\n"
_WORDS = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _page_words(pdf: Path) -> list[set[str]]:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return [set(_words(page.get_textpage().get_text_range())) for page in document]
    finally:
        document.close()


@pytest.fixture(scope="module")
def mixed(graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[str, Any]]:  # fmt: skip
    """A folder holding its files directly (no subfolder), as a user keeps notes."""
    name = f"formats-{uuid.uuid4().hex[:8]}"
    folder = tmp_path_factory.mktemp("kb") / name
    folder.mkdir()
    for fixture in ("manual.html", "manual.docx", *PDFS):
        shutil.copy(FIXTURES / fixture, folder / fixture)
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    (folder / "scan.tiff").write_bytes(b"II*\x00 not a document kgs reads")
    report = ingest(graph, None, folder, IngestOptions(), settings.ingest)
    try:
        yield name, report
    finally:
        delete_scope(graph, name)


def _paragraphs(graph: Graph, scope: str, name: str) -> list[dict[str, Any]]:
    rows = graph.read("explore/document_paragraphs", path=f"{scope}/{name}")
    assert rows, name
    return rows


def test_a_folder_of_mixed_files_is_one_scope_named_after_it(
    mixed: tuple[str, Any], graph: Graph
) -> None:
    scope, report = mixed
    assert report.scopes == [scope]
    assert sorted(report.added) == sorted(
        f"{scope}/{n}" for n in ("manual.html", "manual.docx", *PDFS, "notes.txt")
    )
    assert report.formats == {
        "text/html": 1, "application/pdf": 2, "text/plain": 1,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": 1,
    }  # fmt: skip
    assert report.pages >= 6
    skipped = [p for p in report.problems if p.path.endswith("scan.tiff")]
    assert skipped and "not a supported format" in skipped[0].message
    assert not [p for p in report.problems if p.severity == "error"]


@pytest.mark.parametrize("name", ["manual.html", "manual.docx", *PDFS])
def test_every_format_keeps_the_manuals_structure(
    mixed: tuple[str, Any], graph: Graph, name: str
) -> None:
    scope, _ = mixed
    rows = _paragraphs(graph, scope, name)
    by_text = {r["text"]: r for r in rows}
    step = next(r for t, r in by_text.items() if "Mark the two holes" in t)
    assert step["kind"] == "list"
    assert [h.lower() for h in step["headingPath"]][-1].endswith("mounting the filter head")
    assert "close the cold water valve under the sink" in step["text"].lower()  # steps together
    texts = " ".join(by_text)
    assert "installation of a new cartridge" in texts  # hyphenation at the line end undone
    assert "well-known" in texts  # a real hyphen kept
    assert "not part of the manual" not in texts and "Imprint" not in texts
    assert not any(re.fullmatch(r"(Page )?\d+( of \d+)?", t.strip()) for t in by_text)
    assert not any(t.strip() == "AquaPure 300 User Manual" for t in by_text)


@pytest.mark.parametrize("name", PDFS)
def test_every_pdf_paragraph_is_placed_on_the_page_it_was_printed_on(
    mixed: tuple[str, Any], graph: Graph, name: str
) -> None:
    scope, _ = mixed
    pages = _page_words(FIXTURES / name)
    rows = graph.read("api/document_paragraphs", id=_document_id(graph, scope, name))
    assert {r["pageFirst"] for r in rows} >= {1, 2}
    for row in rows:
        first, last = row["pageFirst"], row["pageLast"]
        assert 1 <= first <= last <= len(pages), row
        starts = [0, *(row["pageStarts"] or [])]
        assert len(starts) == last - first + 1, row
        for page, start in zip(range(first, last + 1), starts, strict=True):
            words = _words(row["text"][start:])[:4]
            assert set(words) <= pages[page - 1], (page, words, row["text"][:80])
    crossing = [r for r in rows if r["pageLast"] > r["pageFirst"]]
    assert crossing, "the flushing paragraph runs over a page break in both fixtures"


def test_html_paragraphs_carry_their_anchor(mixed: tuple[str, Any], graph: Graph) -> None:
    scope, _ = mixed
    rows = graph.read("api/document_paragraphs", id=_document_id(graph, scope, "manual.html"))
    anchors = {r["text"].split()[0]: r["anchor"] for r in rows}
    assert anchors["Wipe"] == "cleaning"
    assert anchors["Choose"] == "mounting"
    assert all(r["pageFirst"] is None for r in rows)


def _document_id(graph: Graph, scope: str, name: str) -> str:
    from ingest.units import document_id

    return document_id(scope, f"{scope}/{name}")


@pytest.fixture(scope="module")
def client(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[TestClient[Any], str]]:
    scope = f"upload-formats-{uuid.uuid4().hex[:8]}"
    api = ApiSettings(keys=(ApiKey(name="admin", sha256=hash_key(KEY), scopes=("*",),
                                   write=True),))  # fmt: skip
    test_settings = msgspec.structs.replace(settings, api=api)
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(test_settings, resources)) as test_client:
            yield test_client, scope
    finally:
        delete_scope(graph, scope)


def _upload(client: TestClient[Any], scope: str, name: str, data: bytes,
            media_type: str = "application/octet-stream") -> Any:  # fmt: skip
    return client.post("/v1/documents", data={"scope": scope},
                       files={"file": (name, data, media_type)}, headers=HEADERS)  # fmt: skip


def test_an_uploaded_pdf_is_cited_with_its_page_and_kept_as_it_was(
    client: tuple[TestClient[Any], str],
) -> None:
    http, scope = client
    original = (FIXTURES / "manual-chromium.pdf").read_bytes()
    added = _upload(http, scope, "manual.pdf", original, "application/pdf")
    assert added.status_code == 201, added.text
    doc_id = added.json()["documentId"]
    document = http.get(f"/v1/documents/{doc_id}", headers=HEADERS).json()
    assert document["mediaType"] == "application/pdf"
    assert document["originalSize"] == len(original)
    assert document["pages"] == len(_page_words(FIXTURES / "manual-chromium.pdf"))
    assert all(p["pageFirst"] >= 1 for p in document["paragraphs"])
    kept = http.get(f"/v1/documents/{doc_id}/source?original=true", headers=HEADERS)
    assert kept.status_code == 200
    assert kept.content == original
    assert kept.headers["content-type"].startswith("application/pdf")
    text = http.get(f"/v1/documents/{doc_id}/source", headers=HEADERS).text
    again = _upload(http, scope, "manual.pdf", original, "application/pdf")
    assert again.status_code == 200 and again.json()["status"] == "unchanged"

    answer = http.post("/v1/query", json={"query": "How do I replace the cartridge?",
                                          "scope": scope}, headers=HEADERS).json()  # fmt: skip
    assert answer["citations"], answer["answer"]
    pages = _page_words(FIXTURES / "manual-chromium.pdf")
    for citation in answer["citations"]:
        assert text[citation["startOffset"] : citation["endOffset"]] == citation["quote"]
        assert citation["place"] == f"manual.pdf, page {citation['page']}"
        assert set(_words(citation["quote"])[:4]) <= pages[citation["page"] - 1], citation


@pytest.mark.parametrize(
    ("name", "data", "status", "reason"),
    [
        ("encrypted.pdf", (FIXTURES / "encrypted.pdf").read_bytes(), 422, "encrypted"),
        ("scanned.pdf", (FIXTURES / "scanned.pdf").read_bytes(), 422, "no text layer"),
        ("cut.pdf", (FIXTURES / "manual-chromium.pdf").read_bytes()[:20_000], 422, "corrupt"),
        ("manual.docx", (FIXTURES / "manual-chromium.pdf").read_bytes(), 415, "PDF"),
        ("notes.html", b"\x89PNG\r\n\x1a\n binary", 415, ""),
    ],
)  # fmt: skip
def test_a_file_kgs_cannot_read_is_a_clear_problem_and_writes_nothing(
    client: tuple[TestClient[Any], str], graph: Graph, name: str, data: bytes, status: int,
    reason: str,
) -> None:  # fmt: skip
    http, scope = client
    response = _upload(http, scope, name, data)
    assert response.status_code == status, response.text
    body = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    messages = " ".join([body["detail"], *(e["message"] for e in body.get("errors", []))])
    assert reason.lower() in messages.lower()
    assert not graph.read("explore/document_paragraphs", path=f"{scope}/{name}")
