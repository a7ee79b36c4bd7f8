"""Converters (ingest/convert): each format's Markdown, read back by the Markdown reader.

The fixtures in tests/data/formats are one short manual in four forms (HTML, Word, a Chromium
and a LibreOffice PDF; see make_fixtures.py) plus a scanned and an encrypted PDF. Some cases
build their file here: a zip bomb, a 100,000-deep HTML page, PDFs laid out by pypdfium2.
"""

from __future__ import annotations

import ctypes
import io
import re
import time
import zipfile
from pathlib import Path

import docx
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from ingest.convert import SUPPORTED_EXTENSIONS, converter_for
from ingest.convert import pdf as pdf_layout
from ingest.convert.base import ConversionError, Converted, ConvertLimits, Location
from ingest.convert.docx import DocxConverter
from ingest.convert.html import HtmlConverter
from ingest.convert.pdf import PdfConverter
from ingest.convert.text import MarkdownConverter, TextConverter
from ingest.markdown import Block, MarkdownDocument, parse_markdown

FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"
MANUALS = ("manual.html", "manual.docx", "manual-chromium.pdf", "manual-libreoffice.pdf")
PDFS = ("manual-chromium.pdf", "manual-libreoffice.pdf")
LIMITS = ConvertLimits()
TITLE = "AquaPure 300 Water Filter: User Manual"
HEADINGS = [
    (1, TITLE),
    (2, "1 Safety"),
    (2, "2 Installation"),
    (3, "2.1 What is in the box"),
    (3, "2.2 Mounting the filter head"),
    (3, "2.3 Flushing a new cartridge"),
    (2, "3 Maintenance"),
    (3, "3.1 Replacing the cartridge"),
    (3, "3.2 Cleaning the filter"),
    (3, "3.3 Troubleshooting"),
    (3, "3.4 Holidays and winter"),
    (2, "4 Technical data"),
]


def convert(name: str, limits: ConvertLimits = LIMITS) -> Converted:
    data = (FORMATS / name).read_bytes()
    return converter_for(name, data[:4096]).convert(data, name, limits)


def parse(converted: Converted) -> MarkdownDocument:
    return parse_markdown(converted.text, max_block_chars=20000, passage_words=160)


def block_with(document: MarkdownDocument, phrase: str) -> Block:
    found = [block for block in document.blocks if phrase in block.text]
    assert found, f"no block contains {phrase!r}"
    return found[0]


def location_at(converted: Converted, offset: int) -> Location:
    found = [loc for loc in converted.locations if loc.start <= offset < loc.end]
    assert len(found) == 1, f"offset {offset} is in {len(found)} locations"
    return found[0]


def reason(error: pytest.ExceptionInfo[ConversionError]) -> str:
    return error.value.reason


# --- the manual in four formats -----------------------------------------------------------------


@pytest.mark.parametrize("name", MANUALS)
def test_manual_headings_and_paths(name: str) -> None:
    document = parse(convert(name))
    assert [(h.level, h.text) for h in document.headings] == HEADINGS
    cleaning = block_with(document, "Wipe the filter head with a damp cloth.")
    assert cleaning.heading_path == (TITLE, "3 Maintenance", "3.2 Cleaning the filter")
    assert cleaning.kind == "paragraph"


@pytest.mark.parametrize("name", MANUALS)
def test_manual_lists_and_table(name: str) -> None:
    document = parse(convert(name))
    procedure = block_with(document, "Close the cold water valve under the sink.")
    assert procedure.kind == "list"
    assert procedure.text.startswith("1. Close the cold water valve under the sink.")
    assert "\n6. Open the valve slowly and check every joint for leaks." in procedure.text
    assert procedure.heading_path[-1] == "2.2 Mounting the filter head"
    bullets = block_with(document, "Turn off the cold water supply")
    assert bullets.kind == "list"
    assert bullets.text.splitlines() == [
        "- Turn off the cold water supply before you start.",
        "- Never connect the filter to hot water above 38 °C.",
        "- Keep the small parts and the plastic bags away from children.",
        "- Replace the cartridge every six months, or sooner when the flow drops.",
    ]
    table = block_with(document, "Filter head")
    assert table.kind == "table"
    assert table.heading_path[-1] == "2.1 What is in the box"
    assert "| Filter head | 1 | pre-assembled |" in table.text
    assert "| Hose 3/8 inch | 2 m | cut to length \\| keep the rest |" in table.text


@pytest.mark.parametrize("name", ("manual.html", "manual.docx", "manual-libreoffice.pdf"))
def test_manual_table_is_exact(name: str) -> None:
    table = block_with(parse(convert(name)), "Filter head")
    assert table.text.splitlines() == [
        "| Part | Quantity | Note |",
        "| --- | --- | --- |",
        "| Filter head | 1 | pre-assembled |",
        "| Cartridge | 2 | one spare |",
        "| Hose 3/8 inch | 2 m | cut to length \\| keep the rest |",
        "| Mounting screws | 4 | with wall plugs |",
    ]


@pytest.mark.parametrize("name", MANUALS)
def test_hyphenation_and_soft_hyphens(name: str) -> None:
    converted = convert(name)
    assert "then the installation of a new cartridge needs a second person." in converted.text
    assert "The well-known mistake" in converted.text
    assert "\u00ad" not in converted.text
    assert "installa-" not in converted.text and "installa\u2010" not in converted.text


@pytest.mark.parametrize("name", MANUALS)
def test_one_location_per_top_level_block(name: str) -> None:
    converted = convert(name)
    document = parse(converted)
    starts = [loc.start for loc in converted.locations]
    assert starts == sorted(starts)
    for before, after in zip(converted.locations, converted.locations[1:], strict=False):
        assert before.end <= after.start
    spans = [(h.start_offset, h.end_offset) for h in document.headings]
    spans += [(b.start_offset, b.end_offset) for b in document.blocks]
    for start, end in spans:
        location = location_at(converted, start)
        assert end <= location.end
    heading_or_block = {location_at(converted, start).start for start, _ in spans}
    assert len(heading_or_block) == len(converted.locations)


def test_manual_docx_body_order() -> None:
    text = convert("manual.docx").text
    order = ["### 2.1 What is in the box", "| Part |", "### 2.2 Mounting", "Choose a place"]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)


# --- PDF ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PDFS)
def test_pdf_running_header_and_page_numbers_dropped(name: str) -> None:
    converted = convert(name)
    assert converted.pages == 3
    assert "AquaPure 300 User Manual" not in converted.text
    assert not re.search(r"Page \d", converted.text)


@pytest.mark.parametrize(
    ("name", "sentence", "page"),
    [
        ("manual-chromium.pdf", "Do not drink the water of the first flush.", 2),
        ("manual-chromium.pdf", "ice splits the housing", 3),
        ("manual-chromium.pdf", "Support and spare parts", 1),
        ("manual-libreoffice.pdf", "Do not drink the water of the first flush.", 2),
        ("manual-libreoffice.pdf", "ice splits the housing", 3),
        ("manual-libreoffice.pdf", "A kinked hose also reduces the flow", 2),
    ],
)
def test_pdf_page_of_a_sentence(name: str, sentence: str, page: int) -> None:
    converted = convert(name)
    location = location_at(converted, converted.text.index(sentence))
    assert location.page_first == location.page_last == page
    assert location.bbox is not None
    x0, y0, x1, y1 = location.bbox
    assert 0 <= x0 < x1 <= 600 and 0 <= y0 < y1 <= 850


@pytest.mark.parametrize(
    ("name", "start", "end", "pages"),
    [
        ("manual-chromium.pdf", "Choose a place on the cabinet wall", "a second person.", (1, 2)),
        ("manual-libreoffice.pdf", "Strange taste.", "remains after the flush.", (2, 3)),
        ("manual-libreoffice.pdf", "1. Close the cold water valve under", "for leaks.", (1, 2)),
    ],
)
def test_pdf_block_across_a_page_break(
    name: str, start: str, end: str, pages: tuple[int, int]
) -> None:
    converted = convert(name)
    block = block_with(parse(converted), start)
    assert block.text.startswith(start) and block.text.endswith(end)
    location = location_at(converted, block.start_offset)
    assert (location.page_first, location.page_last) == pages


@pytest.mark.parametrize("name", PDFS)
def test_pdf_two_columns_read_left_then_right(name: str) -> None:
    text = convert(name).text
    order = ["Low flow.", "behind the bin.", "Leaks at the head.", "Strange taste.", "3.4 Holidays"]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    assert (
        "A taste that appears later means that the cartridge is exhausted or that the water "
        "stood in the filter for more than a week; flush the filter for two minutes" in text
    )


@pytest.mark.parametrize("name", PDFS)
def test_pdf_code_block_from_monospaced_lines(name: str) -> None:
    code = block_with(parse(convert(name)), "E1 flow sensor blocked")
    assert code.kind == "code"
    assert "E3 battery low" in code.text


def test_pdf_encrypted() -> None:
    with pytest.raises(ConversionError) as error:
        convert("encrypted.pdf")
    assert reason(error) == "encrypted PDF: kgs cannot read it without its password"


def test_pdf_without_text_layer() -> None:
    with pytest.raises(ConversionError) as error:
        convert("scanned.pdf")
    assert reason(error) == "no text layer (a scanned PDF?); no OCR is configured"


@pytest.mark.parametrize("ending", [b"", b"\n%%EOF\n"])
def test_pdf_truncated(ending: bytes) -> None:
    data = (FORMATS / "manual-chromium.pdf").read_bytes()
    with pytest.raises(ConversionError) as error:
        PdfConverter().convert(data[: len(data) // 2] + ending, "cut.pdf", LIMITS)
    assert reason(error).startswith("corrupt or truncated PDF: ")


def test_pdf_page_limit() -> None:
    with pytest.raises(ConversionError) as error:
        convert("manual-chromium.pdf", ConvertLimits(max_pages=2))
    assert reason(error) == "the PDF has 3 pages, more than the limit of 2"


# PDFs laid out here, so that layout cases do not depend on a renderer's choices.

Run = tuple[float, float, str, float, bool]  # x, y (baseline), text, size, bold


def make_pdf(pages: list[list[Run]]) -> bytes:
    """A PDF whose text runs are written in the given order (content-stream order)."""
    document = pdfium.PdfDocument.new()
    for runs in pages:
        page = document.new_page(595, 842)
        for x, y, text, size, bold in runs:
            font = b"Helvetica-Bold" if bold else b"Helvetica"
            run = pdfium_c.FPDFPageObj_NewTextObj(document.raw, font, size)
            data = (text + "\x00").encode("utf-16-le")
            buffer = ctypes.create_string_buffer(data, len(data))
            pdfium_c.FPDFText_SetText(run, ctypes.cast(buffer, pdfium_c.FPDF_WIDESTRING))
            pdfium_c.FPDFPageObj_Transform(run, 1, 0, 0, 1, x, y)
            pdfium_c.FPDFPage_InsertObject(page.raw, run)
        pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def lines_at(x: float, top: float, lines: list[str], pitch: float = 14) -> list[Run]:
    return [(x, top - i * pitch, line, 11, False) for i, line in enumerate(lines)]


LEFT = [
    "Alpha one starts the left column and it",
    "runs on over several lines of the same",
    "width, as prose in a narrow column does",
    "until it stops at the end of the column.",
]
RIGHT = [
    "Omega two starts the right column, and",
    "it also runs on over several lines that",
    "are about as wide as the ones to the left",
    "of the gutter, and ends with a full stop.",
]


def test_pdf_columns_written_row_by_row() -> None:
    """The content stream interleaves the columns' rows; the text must not."""
    runs: list[Run] = [(72, 760, "Two Columns", 18, True)]
    for left, right in zip(lines_at(72, 720, LEFT), lines_at(320, 720, RIGHT), strict=True):
        runs += [left, right]
    text = PdfConverter().convert(make_pdf([runs]), "columns.pdf", LIMITS).text
    left = " ".join(LEFT)
    right = " ".join(RIGHT)
    assert text == f"# Two Columns\n\n{left}\n\n{right}\n"


def test_pdf_numbered_titles_bullets_steps_and_hyphens() -> None:
    runs: list[Run] = [(72, 780, "Service Guide", 20, True)]
    runs += lines_at(72, 740, ["2 Installation"])
    runs += lines_at(72, 716, ["Read the whole guide before the installa-", "tion of the unit."])
    runs += lines_at(72, 672, ["2.3 Cleaning the filter"])
    runs += lines_at(72, 648, ["• Rinse the sieve.", "• Dry the seal."])
    runs += lines_at(72, 604, ["Step 1 Open the lid.", "Step 2 Close the lid."])
    runs += lines_at(72, 560, ["1) Unplug the unit.", "2) Wait a minute."])
    text = PdfConverter().convert(make_pdf([runs]), "guide.pdf", LIMITS).text
    document = parse_markdown(text)
    assert [(h.level, h.text) for h in document.headings] == [
        (1, "Service Guide"),
        (2, "2 Installation"),
        (3, "2.3 Cleaning the filter"),
    ]
    assert "before the installation of the unit." in text
    kinds = [(block.kind, block.text) for block in document.blocks]
    assert kinds == [
        ("paragraph", "Read the whole guide before the installation of the unit."),
        ("list", "- Rinse the sieve.\n- Dry the seal."),
        ("list", "* Step 1 Open the lid.\n* Step 2 Close the lid."),
        ("list", "1. Unplug the unit.\n2. Wait a minute."),
    ]


def test_pdf_paragraph_over_a_page_break_and_running_footer() -> None:
    footer = [(280.0, 40.0, "Guide - page 1", 9.0, False)]
    first = lines_at(72, 120, ["This sentence starts at the bottom of one page and"])
    second = lines_at(72, 780, ["goes on at the top of the next one."])
    pages = [
        lines_at(72, 760, ["Opening paragraph on page one."]) + first + footer,
        [*second, (280.0, 40.0, "Guide - page 2", 9.0, False)],
        [*lines_at(72, 780, ["Third page."]), (280.0, 40.0, "Guide - page 3", 9.0, False)],
    ]
    converted = PdfConverter().convert(make_pdf(pages), "guide.pdf", LIMITS)
    joined = (
        "This sentence starts at the bottom of one page and goes on at the top of the next one."
    )
    assert converted.text == f"Opening paragraph on page one.\n\n{joined}\n\nThird page.\n"
    location = location_at(converted, converted.text.index(joined))
    assert (location.page_first, location.page_last) == (1, 2)


# --- HTML ---------------------------------------------------------------------------------------


def html(body: str, limits: ConvertLimits = LIMITS) -> Converted:
    page = f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"
    return HtmlConverter().convert(page.encode(), "page.html", limits)


def test_html_anchors() -> None:
    converted = convert("manual.html")
    for phrase, anchor in [
        ("# AquaPure 300", "top"),
        ("This manual explains", "top"),
        ("### 2.2 Mounting the filter head", "mounting"),
        ("Wipe the filter head", "cleaning"),
        ("Low flow.", "troubleshooting"),
        ("> Note: the flow meter", "technical-data"),
    ]:
        assert location_at(converted, converted.text.index(phrase)).anchor == anchor, phrase


def test_html_anchor_inside_heading_and_named_anchor() -> None:
    converted = html(
        '<section id="s"><h2><a id="own"></a>Title</h2><p>First.</p>'
        '<a name="named"></a><p>Second.</p></section>'
    )
    anchors = [(converted.text[loc.start : loc.end], loc.anchor) for loc in converted.locations]
    assert anchors == [("## Title", "own"), ("First.", "own"), ("Second.", "named")]


def test_html_keeps_main_and_drops_chrome() -> None:
    converted = convert("manual.html")
    text = converted.text
    for dropped in ["Internal draft note", "not part of the manual", "All rights reserved"]:
        assert dropped not in text
    assert "[Safety](#safety)" not in text  # the nav
    assert converted.warnings == ()
    intro = block_with(parse(converted), "This manual explains")
    assert [(link.href, link.text) for link in intro.links] == [
        ("https://example.com/support", "AquaPure support site")
    ]


def test_html_code_and_quote() -> None:
    document = parse(convert("manual.html"))
    code = block_with(document, "E1  flow sensor blocked")
    assert (code.kind, code.info) == ("code", "text")
    assert code.text.splitlines()[1:-1] == [
        "E1  flow sensor blocked",
        "E2  leak detected at the head",
        "E3  battery low",
    ]
    assert block_with(document, "Note: the flow meter").kind == "quote"


def test_html_hidden_and_unsafe_links() -> None:
    converted = html(
        '<p>Visible <span aria-hidden="true">aria</span><span style="display: none">none</span>'
        '<a href="javascript:alert(1)">script link</a> <a href="mailto:a@b.example">mail</a> '
        '<a href="../up.html">up</a> <a href="data:text/html,x">data</a></p>'
    )
    assert converted.text == (
        "Visible script link [mail](mailto:a@b.example) [up](../up.html) data\n"
    )


def test_html_nested_and_adjacent_lists() -> None:
    converted = html(
        "<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>"
        "<ul><li>e</li></ul><ol start='3'><li>f</li><li>g</li></ol>"
    )
    blocks = [(block.kind, block.text) for block in parse(converted).blocks]
    assert blocks == [
        ("list", "- a\n  - b\n  - c\n- d"),
        ("list", "* e"),
        ("list", "3. f\n4. g"),
    ]
    assert len(converted.locations) == 3


def test_html_text_that_looks_like_markdown_stays_text() -> None:
    converted = html(
        "<p># not a heading</p><p>1. not a list</p><p>- nor this</p><p>| a | b |<br>|---|---|</p>"
        "<p>*stars* and _under_ and `ticks` and [x](y) and &lt;b&gt;</p><h2>C #</h2>"
    )
    document = parse(converted)
    assert [h.text for h in document.headings] == ["C \\#"]
    assert [b.kind for b in document.blocks] == ["paragraph"] * 5
    assert not any(block.links for block in document.blocks)


def test_html_mostly_navigation_warning() -> None:
    nav = "<nav>" + "<a href='/x'>Navigation entry</a> " * 60 + "</nav>"
    converted = html(nav + "<main><p>Short content.</p></main><footer>Footer words</footer>")
    assert converted.text == "Short content.\n"
    assert len(converted.warnings) == 1
    share = re.fullmatch(
        r"mostly navigation: kept (\d+)% of the page's text", converted.warnings[0]
    )
    assert share is not None and int(share.group(1)) < 20


def test_html_declared_charset() -> None:
    page = b"<html><head><meta charset='windows-1252'></head><body><p>caf\xe9 \x80</p></body>"
    assert HtmlConverter().convert(page, "p.html", LIMITS).text == "café €\n"
    utf16 = "\ufeff<p>grüße</p>".encode("utf-16-le")
    assert HtmlConverter().convert(utf16, "p.html", LIMITS).text == "grüße\n"


def test_html_100000_nested_divs() -> None:
    depth = 100_000
    page = "<div>" * depth + "deep <b>text</b>" + "</div>" * depth + "<p id='after'>After.</p>"
    started = time.monotonic()
    converted = html(page)
    assert time.monotonic() - started < 30
    assert converted.text == "deep text\n\nAfter.\n"
    assert converted.locations[-1].anchor == "after"


def test_html_beyond_max_depth_is_flat_text() -> None:
    nested = "<div>" * 5 + "<h2>Deep title</h2><ul><li>one</li><li>two</li></ul>" + "</div>" * 5
    converted = html(nested, ConvertLimits(max_html_depth=4))
    assert converted.text == "Deep title one two\n"


# --- DOCX ---------------------------------------------------------------------------------------


def test_docx_zip_bomb(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", "<w:document/>")
        with archive.open("word/media/zeros.bin", "w", force_zip64=True) as member:
            for _ in range(200):
                member.write(bytes(1_000_000))
    data = bomb.read_bytes()
    assert len(data) < 1_000_000
    with pytest.raises(ConversionError) as error:
        DocxConverter().convert(data, "bomb.docx", LIMITS)
    assert reason(error).startswith("looks like a zip bomb: its parts unpack to 200,000,013 bytes")
    with pytest.raises(ConversionError) as error:
        DocxConverter().convert(data, "bomb.docx", ConvertLimits(max_unzipped_bytes=10**9))
    assert re.match(r"looks like a zip bomb: it unpacks to [\d,]+ times its size", reason(error))


def test_docx_truncated_and_not_word() -> None:
    data = (FORMATS / "manual.docx").read_bytes()
    with pytest.raises(ConversionError) as error:
        DocxConverter().convert(data[: len(data) // 2], "cut.docx", LIMITS)
    assert reason(error).startswith("corrupt or truncated Word file")
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(ConversionError) as error:
        DocxConverter().convert(other.getvalue(), "sheet.docx", LIMITS)
    assert reason(error).startswith("not a Word file")


def test_docx_title_styles_lists_and_tables() -> None:
    document = docx.Document()
    document.add_paragraph("Owner's Guide", style="Title")
    document.add_paragraph("Getting started", style="Heading 2")
    document.add_paragraph("Unpack the unit.", style="List Number")
    document.add_paragraph("Plug it in.", style="List Number")
    document.add_paragraph("Blue light: ready.", style="List Bullet")
    document.add_paragraph("Nested detail.", style="List Bullet 2")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, [("Light", "Meaning"), ("Blue", "Ready")], strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph("Line one\nLine two")
    buffer = io.BytesIO()
    document.save(buffer)
    converted = DocxConverter().convert(buffer.getvalue(), "guide.docx", LIMITS)
    parsed = parse(converted)
    assert [(h.level, h.text) for h in parsed.headings] == [
        (1, "Owner's Guide"),
        (2, "Getting started"),
    ]
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("list", "1. Unpack the unit.\n2. Plug it in."),
        ("list", "- Blue light: ready.\n  - Nested detail."),
        ("table", "| Light | Meaning |\n| --- | --- |\n| Blue | Ready |"),
        ("paragraph", "Line one  \nLine two"),
    ]
    assert all(b.heading_path == ("Owner's Guide", "Getting started") for b in parsed.blocks)


# --- text, Markdown and the registry ------------------------------------------------------------


def test_text_stays_paragraphs() -> None:
    source = (
        "# not a heading\n> not a quote\n- not a bullet\n1. not a list\n    not code\n"
        "| a | b |\n|---|---|\n```\n<div>x</div>\n[ref]: http://x.example\n\n---\n"
    )
    converted = TextConverter().convert(source.encode(), "notes.txt", LIMITS)
    document = parse(converted)
    assert document.headings == ()
    assert [b.kind for b in document.blocks] == ["paragraph", "paragraph"]
    plain = re.sub(r"\\(.)", r"\1", converted.text)
    assert plain.split() == source.split()


def test_text_setext_headings() -> None:
    source = "Manual\n======\nIntro line.\n\nCare\n----\nWipe it.\nDry it.\n\nEnd.\n"
    converted = TextConverter().convert(source.encode(), "notes.txt", LIMITS)
    document = parse(converted)
    assert [(h.level, h.text) for h in document.headings] == [(1, "Manual"), (2, "Care")]
    assert [(b.text, b.heading_path) for b in document.blocks] == [
        ("Intro line.", ("Manual",)),
        ("Wipe it.\nDry it.", ("Manual", "Care")),
        ("End.", ("Manual", "Care")),
    ]
    assert len(converted.locations) == 5


def test_markdown_as_is_and_errors() -> None:
    converter = MarkdownConverter()
    assert converter.convert(b"\xef\xbb\xbf# T\n", "a.md", LIMITS).text == "# T\n"
    with pytest.raises(ConversionError) as error:
        converter.convert(b"abc\x00def", "a.md", LIMITS)
    assert "NUL byte at byte offset 3" in reason(error)
    with pytest.raises(ConversionError) as error:
        converter.convert(
            "ok é \xff".encode("utf-8", "surrogateescape")[:5] + b"\xff", "a.md", LIMITS
        )
    assert reason(error).endswith("at byte offset 5")


def test_converted_text_limit() -> None:
    with pytest.raises(ConversionError) as error:
        TextConverter().convert(b"x" * 100, "a.txt", ConvertLimits(max_chars=10))
    assert "more than the limit of 10" in reason(error)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("manual.html", HtmlConverter),
        ("manual.docx", DocxConverter),
        ("manual-chromium.pdf", PdfConverter),
        ("make_fixtures.py", None),
    ],
)
def test_converter_for_fixtures(name: str, expected: type | None) -> None:
    head = (FORMATS / name).read_bytes()[:4096]
    if expected is None:
        with pytest.raises(ConversionError) as error:
            converter_for(name, head)
        assert reason(error) == (
            "kgs cannot read files ending in .py; it reads .md, .markdown, .txt, .html, .htm, "
            ".docx, .pdf"
        )
    else:
        assert isinstance(converter_for(name, head), expected)


@pytest.mark.parametrize(
    ("fixture", "name", "message"),
    [
        ("manual-chromium.pdf", "manual.docx", "content is a PDF, but the name ends in .docx"),
        ("manual.docx", "notes.md", "content is a Word (.docx) file, but the name ends in .md"),
        ("manual.html", "manual.pdf", "content is HTML, but the name ends in .pdf"),
        ("manual.docx", "page.HTML", "content is a Word (.docx) file, but the name ends in .html"),
    ],
)
def test_content_must_match_the_extension(fixture: str, name: str, message: str) -> None:
    with pytest.raises(ConversionError) as error:
        converter_for(name, (FORMATS / fixture).read_bytes()[:4096])
    assert reason(error) == message


def test_supported_extensions() -> None:
    assert set(SUPPORTED_EXTENSIONS) == {
        ".md",
        ".markdown",
        ".txt",
        ".html",
        ".htm",
        ".docx",
        ".pdf",
    }
    assert isinstance(converter_for("README.MD", b"# Title\n"), MarkdownConverter)


def _pdf_line(
    text: str, y0: float, x0: float, x1: float, *, mono: bool = False
) -> pdf_layout._Line:
    return pdf_layout._Line(text, 1, x0, y0, x1, y0 + 11, 12.0, False, mono)


def test_pdf_runs_drawn_over_a_line_stay_in_its_paragraph() -> None:
    """Glyphs of a fallback font are drawn as runs over the line that holds them: one line,
    not table cells that swallow the lines below (which lost a paragraph's text once)."""
    row = [_pdf_line("Mauna Kea ( / m n / ) , is a dormant", 745, 56, 531),
           _pdf_line("ˌ ɔː ə", 746, 128, 199), _pdf_line("ˈ ɐ ə", 746, 379, 449)]  # fmt: skip
    merged = pdf_layout._merge_row(row)
    assert merged.cells == ()
    below = [_pdf_line("volcano on the island of Hawaii . Standing", 731, 56, 552),
             _pdf_line("years ago and is now dormant .", 717, 56, 261)]  # fmt: skip
    metrics = pdf_layout._Metrics(body_size=12.0, body_height=11.0)
    hyphens = pdf_layout._Hyphens([merged, *below])
    blocks = pdf_layout._blocks([merged, *below], {}, metrics, hyphens)
    text = " ".join(line.text for block in blocks for line in block.lines)
    assert "volcano on the island" in text and "now dormant" in text


def test_a_pdf_code_span_filling_a_line_stays_in_its_sentence() -> None:
    lines = [_pdf_line("the name comes from two terms , and", 745, 56, 540),
             _pdf_line("such as Segeda and Segontia , cf", 731, 56, 540, mono=True),
             _pdf_line("German Sieg or Dutch zege .", 717, 56, 300)]  # fmt: skip
    metrics = pdf_layout._Metrics(body_size=12.0, body_height=11.0)
    assert len(pdf_layout._blocks(lines, {}, metrics, pdf_layout._Hyphens(lines))) == 1
    code = [_pdf_line("The display shows these codes:", 745, 56, 300),
            _pdf_line("E1  flow sensor blocked", 731, 56, 300, mono=True)]  # fmt: skip
    assert len(pdf_layout._blocks(code, {}, metrics, pdf_layout._Hyphens(code))) == 2


def test_a_line_end_hyphen_is_kept_where_it_joins_two_words() -> None:
    """PDFium marks every hyphen at a line end alike: one that splits a word goes, one of a
    compound stays; how the document writes the word elsewhere decides first."""
    elsewhere = [_pdf_line("Pair a Bluetooth-enabled headset.", 700, 56, 400),
                 _pdf_line("A reconfiguration is needed.", 690, 56, 400)]  # fmt: skip
    hyphens = pdf_layout._Hyphens(elsewhere)
    assert hyphens.join(["Turn on the Bluetooth\u00ad", "enabled speaker"]) == (
        "Turn on the Bluetooth-enabled speaker"
    )
    assert hyphens.join(["after the reconfigu-", "ration ends"]) == "after the reconfiguration ends"
    alone = pdf_layout._Hyphens([])
    assert alone.join(["the installa-", "tion guide"]) == "the installation guide"
    assert alone.join(["a self-", "cleaning filter"]) == "a self-cleaning filter"
    assert alone.join(["turn on Wi-", "Fi first"]) == "turn on Wi-Fi first"
    assert alone.join(["Galaxy Note (2016–", "present)"]) == "Galaxy Note (2016–present)"
    assert alone.join(["one thing –", "and another"]) == "one thing – and another"


def test_the_body_font_is_the_prose_not_the_code() -> None:
    """Where monospaced code (set smaller) outnumbers prose, prose lines stay paragraphs."""
    lines = [_pdf_line(f"code line number {i} with many characters in it", 700 - 12 * i, 56, 500,
                       mono=True) for i in range(12)]  # fmt: skip
    prose = [
        pdf_layout._Line("Ordinary prose sits here.", 1, 56, 500, 400, 512, 16.0, False, False)
    ]
    page = pdf_layout._Page(number=1, height=842.0, fragments=tuple(lines + prose))
    layout = pdf_layout._Layout([page], [])
    assert layout._metrics.body_size == 16.0
    assert [p.kind for p in layout.pieces() if "prose" in p.text] == ["paragraph"]
