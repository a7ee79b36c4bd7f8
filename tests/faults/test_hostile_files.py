"""Hostile files of every format in one folder: each is refused with a clear problem naming the
file and the reason, or ingested within explicit limits; the run finishes, its peak memory is
bounded (and printed), and the scope's graph holds nothing of the refused files. The good file
beside them still ingests (docs/formats.md)."""

from __future__ import annotations

import io
import uuid
import zipfile
from pathlib import Path

from ingest.units import document_id
from service.db import Graph
from service.settings import Settings, project_root
from tests.faults.support import measured_ingest
from tests.integration.conftest import delete_scope

FIXTURES = project_root() / "tests" / "data" / "formats"
MAX_HOSTILE_RSS_KIB = 1_048_576  # 1 GiB: the ingest subprocess, model not loaded
ZIP_BOMB_BYTES = 300_000_000  # one member of zeros, a few hundred KiB compressed
NESTED_DEPTH = 100_000
MANY_PAGES = 10_000


def _zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            chunk = b"\x00" * 1_000_000
            for _ in range(ZIP_BOMB_BYTES // len(chunk)):
                member.write(chunk)
    return buffer.getvalue()


def _many_pages(count: int) -> bytes:
    """A valid PDF of `count` pages sharing one content stream of one line of text."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (5 + i) for i in range(count))
        + b"] /Count %d >>" % count,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    text = b"BT /F1 12 Tf 72 720 Td (One line on every page.) Tj ET"
    objects.append(b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream")
    page = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>")  # fmt: skip
    objects.extend(page for _ in range(count))
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, xref))  # fmt: skip
    return out.getvalue()


def _hostile(folder: Path, settings: Settings) -> dict[str, str]:
    """File name -> what the problem must say (empty: ingested within the limits)."""
    pdf = (FIXTURES / "manual-chromium.pdf").read_bytes()
    files = {
        "scanned.pdf": ((FIXTURES / "scanned.pdf").read_bytes(), "no text layer"),
        "encrypted.pdf": ((FIXTURES / "encrypted.pdf").read_bytes(), "encrypted"),
        "truncated.pdf": (pdf[: len(pdf) // 3], "corrupt or truncated"),
        "truncated.docx": ((FIXTURES / "manual.docx").read_bytes()[:5000], "corrupt"),
        "really-a-pdf.docx": (pdf, "PDF"),
        "bomb.docx": (_zip_bomb(), "zip bomb"),
        "many-pages.pdf": (_many_pages(MANY_PAGES), f"limit of {settings.ingest.max_pdf_pages:,}"),
        "nested.html": (
            (
                "<html><body>"
                + "<div>" * NESTED_DEPTH
                + "<p>Deep text survives.</p>"
                + "</div>" * NESTED_DEPTH
                + "</body></html>"
            ).encode(),
            "",
        ),
        "good.html": (
            b"<html><body><h1>Good</h1><p>A good page beside bad ones.</p></body></html>",
            "",
        ),
    }
    for name, (data, _) in files.items():
        (folder / name).write_bytes(data)
    with open(folder / "huge.pdf", "wb") as huge:  # sparse: over the size limit, never read
        huge.write(b"%PDF-1.7\n")
        huge.truncate(settings.ingest.max_file_bytes * 4)
    return {**{n: r for n, (_, r) in files.items()}, "huge.pdf": "byte limit"}


def test_hostile_files_are_refused_clearly_within_bounded_memory(
    graph: Graph, settings: Settings, cli_env: dict[str, str], tmp_path: Path
) -> None:
    scope = f"hostile-files-{uuid.uuid4().hex[:8]}"
    folder = tmp_path / scope
    folder.mkdir()
    expected = _hostile(folder, settings)
    try:
        run, peak_kib = measured_ingest(folder, cli_env)
        print(f"\nhostile files: peak RSS {peak_kib / 1024:.0f} MiB\n{run.stdout}")
        assert run.returncode == 0, run.stderr[-2000:]
        assert peak_kib <= MAX_HOSTILE_RSS_KIB
        for name, reason in expected.items():
            path = f"{scope}/{name}"
            ingested = graph.read("api/document", id=document_id(scope, path))
            if reason:
                line = next(x for x in run.stdout.splitlines() if path in x)
                assert "error" in line and reason.lower() in line.lower(), line
                assert not ingested, name
            else:
                assert ingested and ingested[0]["paragraphs"] >= 1, name
        deep = graph.read("explore/document_paragraphs", path=f"{scope}/nested.html")
        assert any("Deep text survives." in r["text"] for r in deep)
    finally:
        delete_scope(graph, scope)
