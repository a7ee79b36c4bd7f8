"""Regenerate the format fixtures of tests/unit/test_convert.py from manual.html.

manual.html is the hand-written source: a short water-filter manual with numbered sections and
subsections, a numbered procedure, a bulleted list, a table, a two-column section, a paragraph
that crosses a page break, a soft hyphen that Chromium breaks as "installa-/tion", and a running
header and "Page N of M" footer from CSS @page margin boxes. From it this script writes:

- manual-chromium.pdf    Chromium's print of manual.html (no outline: headings from fonts)
- manual.docx            the same content built with python-docx, real Heading 1-3, List Number
                         and List Bullet styles, a grid table, a two-column section, header and
                         footer with a page-number field
- manual-libreoffice.pdf LibreOffice's PDF of manual.docx (with bookmarks: headings from the
                         outline)
- scanned.pdf            a page that holds only a picture (no text layer)
- encrypted.pdf          a one-page PDF that needs the user password "secret"

Needs /usr/bin/chromium, /usr/bin/soffice, python-docx and beautifulsoup4 (runtime dependencies)
and pypdf (generation only: `.venv/bin/pip install pypdf==7.1.0`; RC4 encryption needs nothing
else). CI does not run it; the committed files are what the tests read. Run from the repository
root:

    .venv/bin/python tests/data/formats/make_fixtures.py

Chromium and LibreOffice write creation dates into their files, so a rerun changes the bytes
but not the text the tests look at.
"""

from __future__ import annotations

import base64
import io
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import docx
from bs4 import BeautifulSoup, Tag
from docx.enum.section import WD_SECTION
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Mm, Pt
from docx.text.paragraph import Paragraph

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
SOFFICE = "/usr/bin/soffice"
HEADER = "AquaPure 300 User Manual"
# Right indent of the paragraph that holds "installa-tion", chosen so that LibreOffice breaks
# the line at the soft hyphen (like the 84 mm wide paragraph in manual.html does in Chromium).
HYPHEN_PARAGRAPH_RIGHT_INDENT = Mm(85)


def main() -> None:
    html = HERE / "manual.html"
    print_pdf(html, HERE / "manual-chromium.pdf")
    build_docx(html.read_text(encoding="utf-8"), HERE / "manual.docx")
    docx_to_pdf(HERE / "manual.docx", HERE / "manual-libreoffice.pdf")
    write_scanned(HERE / "scanned.pdf")
    write_encrypted(HERE / "encrypted.pdf")
    for name in sorted(p.name for p in HERE.iterdir() if p.suffix in {".pdf", ".docx"}):
        print(f"{name}: {(HERE / name).stat().st_size} bytes")


def print_pdf(source: Path, target: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--no-pdf-header-footer",
                f"--print-to-pdf={target}",
                source.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def docx_to_pdf(source: Path, target: Path) -> None:
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [
                SOFFICE,
                f"-env:UserInstallation=file://{work}/profile",
                "--headless",
                "--convert-to",
                'pdf:writer_pdf_Export:{"ExportBookmarks":{"type":"boolean","value":"true"}}',
                "--outdir",
                work,
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )
        shutil.copyfile(Path(work) / f"{source.stem}.pdf", target)


# --- manual.docx -------------------------------------------------------------------------------


def build_docx(html: str, target: Path) -> None:
    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main")
    assert isinstance(main, Tag)
    document = docx.Document()
    section = document.sections[0]
    section.page_height, section.page_width = Mm(297), Mm(210)
    section.left_margin = section.right_margin = Mm(20)
    section.header.paragraphs[0].text = HEADER
    footer = section.footer.paragraphs[0]
    footer.add_run("Page ")
    add_field(footer, "PAGE")
    footer.add_run(" of ")
    add_field(footer, "NUMPAGES")
    for element in main.find_all(recursive=False):
        add_element(document, element)
    document.save(str(target))


def add_element(document: docx.document.Document, element: Tag) -> None:
    name = element.name
    if name in {"h1", "h2", "h3"}:
        document.add_paragraph(text_of(element), style=f"Heading {name[1]}")
    elif name == "p":
        paragraph = document.add_paragraph(text_of(element))
        if "narrow" in (element.get("class") or []):
            paragraph.paragraph_format.right_indent = HYPHEN_PARAGRAPH_RIGHT_INDENT
    elif name in {"ul", "ol"}:
        add_list(document, element)
    elif name == "table":
        add_table(document, element)
    elif name == "pre":
        for line in element.get_text().splitlines():
            run = document.add_paragraph().add_run(line)
            run.font.name = "DejaVu Sans Mono"
    elif name == "blockquote":
        document.add_paragraph(text_of(element), style="Quote")
    elif name == "div" and "columns" in (element.get("class") or []):
        add_columns(document, element)


def text_of(element: Tag) -> str:
    return " ".join(element.get_text().split())


def add_list(document: docx.document.Document, element: Tag) -> None:
    ordered = element.name == "ol"
    style = "List Number" if ordered else "List Bullet"
    num_id = restarted_numbering(document, style) if ordered else None
    for item in element.find_all("li", recursive=False):
        paragraph = document.add_paragraph(text_of(item), style=style)
        if num_id is not None:
            num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
            num_pr.get_or_add_ilvl().val = 0
            num_pr.get_or_add_numId().val = num_id


def restarted_numbering(document: docx.document.Document, style: str) -> int:
    """A new w:num on the style's list definition that starts again at 1 (Word and LibreOffice
    otherwise continue the numbers of the previous procedure)."""
    style_num_id = document.styles[style].element.pPr.numPr.numId.val
    numbering = document.part.numbering_part.element
    abstract_id = numbering.num_having_numId(style_num_id).abstractNumId.val
    num = numbering.add_num(abstract_id)
    num.add_lvlOverride(ilvl=0).add_startOverride(1)
    return int(num.numId)


def add_table(document: docx.document.Document, element: Tag) -> None:
    rows = [[text_of(cell) for cell in row.find_all(["th", "td"])] for row in element("tr")]
    table = document.add_table(rows=len(rows), cols=max(map(len, rows)))
    table.style = "Table Grid"
    for row_cells, values in zip(table.rows, rows, strict=True):
        for cell, value in zip(row_cells.cells, values, strict=False):
            cell.text = value
    for cell in table.rows[0].cells:
        for run in cell.paragraphs[0].runs:
            run.bold = True
    document.add_paragraph()


def add_columns(document: docx.document.Document, element: Tag) -> None:
    """A continuous section of two columns, then back to one."""
    set_columns(document.add_section(WD_SECTION.CONTINUOUS), 2)
    for paragraph in element.find_all("p", recursive=False):
        document.add_paragraph(text_of(paragraph))
    set_columns(document.add_section(WD_SECTION.CONTINUOUS), 1)


def set_columns(section: docx.section.Section, count: int) -> None:
    sect_pr = section._sectPr
    cols = sect_pr.find(qn("w:cols"))
    if cols is None:
        cols = OxmlElement("w:cols")
        sect_pr.append(cols)
    cols.set(qn("w:num"), str(count))
    cols.set(qn("w:space"), str(int(Pt(24).twips)))


def add_field(paragraph: Paragraph, instruction: str) -> None:
    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), instruction)
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "1"
    run.append(text)
    field.append(run)
    paragraph._p.append(field)


# --- scanned.pdf and encrypted.pdf -------------------------------------------------------------


def write_scanned(target: Path) -> None:
    """Chromium's print of a page that holds only a PNG picture: a PDF without a text layer."""
    png = base64.b64encode(grey_png(400, 300)).decode("ascii")
    page = (
        "<!DOCTYPE html><html><head><style>@page { size: A4; margin: 20mm; }</style></head>"
        f'<body><img alt="" src="data:image/png;base64,{png}" style="width:170mm"></body></html>'
    )
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "scanned.html"
        source.write_text(page, encoding="utf-8")
        print_pdf(source, target)


def grey_png(width: int, height: int) -> bytes:
    """A grey picture with dark stripes, written without an imaging library."""
    rows = []
    for y in range(height):
        dark = (y // 12) % 4 == 0 and 40 < y < height - 40
        value = 60 if dark else 225
        rows.append(b"\x00" + bytes([value]) * width)
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def write_encrypted(target: Path) -> None:
    from pypdf import PdfReader, PdfWriter  # generation only, not a runtime dependency

    reader = PdfReader(HERE / "manual-chromium.pdf")
    writer = PdfWriter()
    writer.add_page(reader.pages[0])
    writer.encrypt(user_password="secret", owner_password="owner-secret", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    target.write_bytes(buffer.getvalue())


if __name__ == "__main__":
    main()
