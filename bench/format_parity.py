"""Format parity: the same public sets as Markdown, HTML, DOCX and two kinds of PDF, each ingested
as its own scope, must answer alike.

    .venv/bin/python bench/format_parity.py [--eval-dir ../shared/eval] [--sets clapnq,s10]
        [--formats md,html,docx,pdf-chromium,pdf-libreoffice] [--skip-build] [--skip-ingest]
        [--build-only] [--max-files N] [--force] [--infilter FILTER] [--reuse-answers [FORMATS]]
        [--limit N]

--build-only builds the files and stops (--max-files N: only the first N of each set, for a quick
check); --force rebuilds the --formats files even when their Markdown is unchanged (to time a
build, or after a Chromium or LibreOffice upgrade; a converter change needs no rebuild: ingest
converts every file and rewrites the documents whose converted text changed); --reuse-answers
[md,...] scores the last run's outcomes and citations of those formats (all when none is named)
again instead of asking, e.g. to finish a run that was cut short.

What it measures: the acceptance check of the converters (ingest/convert/). For every format,
R@1, R@5 and answer F1 must lie within 0.02 of the Markdown scope's, and the heading path of at
least 95% of the cited paragraphs must equal the Markdown one.

How:
1. Build, under bench/out/formats-kb/<scope>/ with scopes `fmt-<set>-<format>`:
   - md: ClapNQ one file per passage (`# <title>` and the passage); S10 one file per manual
     section laid out like bench/retrieval_quality.py's s10_markdown (heading path split into
     H1..Hn, every upstream text line its own paragraph) but with no YAML front matter, which no
     other format can carry;
   - html: each Markdown file rendered by markdown-it-py (commonmark + tables) into a complete
     HTML5 document, every heading with an `id` (a slug of its text);
   - pdf-chromium: each HTML file printed to A4 by headless Chromium (Playwright, one browser);
   - docx: the HTML files converted by LibreOffice (`soffice --convert-to docx`, in batches);
   - pdf-libreoffice: the DOCX files printed to PDF by LibreOffice.
   A manifest of source hashes (bench/out/formats-kb/manifest.json) skips files already built.
2. Every format's folder is ingested as its own scope (prune) with real embeddings, timed.
3. Questions go through the in-process answer path of `kgs eval` (topK 10): ClapNQ's 600 dev
   questions (gold: the passage's file), S10's 40 questions of heuristic coverage >= 0.8 (gold:
   the first heuristic group), with gold paths in each format's own extension.
4. Per set and format: R@1, R@5, answer F1, refused and balanced abstention for the report half
   (odd positions) and all questions, and the difference from the md scope (flagged past 0.02).
5. Heading-path parity: every paragraph of a format's document is matched to the paragraph of
   the Markdown document of the same stem with the highest word-set Jaccard overlap, and counts
   as equal when both heading paths are equal (case and whitespace normalised). The same share
   is computed over the paragraphs cited by the answers (a citation's offsets name its paragraph).
All figures go to bench/out/format_parity.json, outcomes to bench/out/format-parity/.

Data licences: ClapNQ Apache-2.0 (Wikipedia text CC BY-SA); the S10 manual is Samsung's,
internal evaluation only: its text, in any format, is written only under the git-ignored
bench/out/.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
from markdown_it import MarkdownIt
from retrieval_quality import read_jsonl, s10_lines, s10_markdown, safe_name

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, IngestReport, ingest
from service.db import graph_session
from service.db.graph import Graph
from service.evaluation import EvalQuestion, Outcome, report, run_questions
from service.evaluation.report import write_outcomes
from service.evaluation.run import Ask
from service.question.runner import answer_question
from service.settings import Settings, project_root

OUT = project_root() / "bench" / "out"
KB = OUT / "formats-kb"
MANIFEST = KB / "manifest.json"
RESULTS = OUT / "format_parity.json"
OUTCOMES = OUT / "format-parity"
TOP_K = 10
TOLERANCE = 0.02
HEADING_PARITY_GOAL = 0.95
WORD_COVERAGE_GOAL = 0.9  # a document keeping fewer of the Markdown words is reported short
SETS = ("clapnq", "s10")
FORMATS = ("md", "html", "docx", "pdf-chromium", "pdf-libreoffice")  # each after its source
EXTENSION = {"md": ".md", "html": ".html", "docx": ".docx", "pdf-chromium": ".pdf",
             "pdf-libreoffice": ".pdf"}  # fmt: skip
SOURCE = {"html": "md", "docx": "html", "pdf-chromium": "html", "pdf-libreoffice": "docx"}
BUILD_VERSION = "1"  # bump to rebuild every derived file
LIBREOFFICE_BATCH = 200
LIBREOFFICE_TIMEOUT_S = 3600
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
PDF_MARGIN = {"top": "1cm", "right": "1cm", "bottom": "1cm", "left": "1cm"}
DOCX_HEADING_STYLE = re.compile(rb'w:pStyle w:val="Heading ?\d"')
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n+", re.DOTALL)
EXAMPLES_KEPT = 8
_WORD = re.compile(r"[^\W_]+")  # letters and digits: "r_" and an escaped "r\_" alike
_SLUG_DROP = re.compile(r"[^\w\- ]+")


class FormatSet(msgspec.Struct, frozen=True, kw_only=True):
    name: str  # clapnq, s10
    files: dict[str, str]  # file stem -> Markdown
    questions: tuple[EvalQuestion, ...]  # gold holds file stems; see questions_for


def scope_of(set_name: str, fmt: str) -> str:
    return f"fmt-{set_name}-{fmt}"


def folder_of(set_name: str, fmt: str) -> Path:
    return KB / scope_of(set_name, fmt)


# --- the sets -------------------------------------------------------------------------------


def clapnq_set(eval_dir: Path) -> FormatSet:
    files = {
        safe_name(p["pid"]): f"# {p['title']}\n\n{p['text']}\n"
        for p in read_jsonl(eval_dir / "clapnq" / "derived" / "dev_corpus.jsonl")
    }
    questions = tuple(
        EvalQuestion(
            id=str(r["qid"]), question=r["question"], answerable=bool(r["answerable"]),
            answers=tuple(a for a in r["answers"] if a) if r["answerable"] else (),
            gold=tuple(safe_name(g) for g in r["gold_pids"]),
        )
        for r in read_jsonl(eval_dir / "clapnq" / "derived" / "dev_queries.jsonl")
    )  # fmt: skip
    return FormatSet(name="clapnq", files=files, questions=questions)


def s10_set(eval_dir: Path) -> FormatSet:
    sections = read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_corpus.jsonl")
    lines = s10_lines(eval_dir, sections)
    files = {
        safe_name(s["sid"]): FRONT_MATTER.sub("", s10_markdown(s["title"], lines[s["sid"]]))
        for s in sections
    }
    questions = tuple(
        EvalQuestion(
            id=str(r["qid"]), question=r["question"], answers=(r["answer"],),
            gold=tuple(safe_name(g) for g in r["heuristic_gold_groups"][0]),
        )
        for r in read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_qa.jsonl")
        if r["heuristic_coverage"] >= 0.8
    )  # fmt: skip
    return FormatSet(name="s10", files=files, questions=questions)


def questions_for(fs: FormatSet, fmt: str, limit: int | None) -> list[EvalQuestion]:
    scope, ext = scope_of(fs.name, fmt), EXTENSION[fmt]
    chosen = fs.questions[:limit] if limit else fs.questions
    return [
        msgspec.structs.replace(q, gold=tuple(f"{scope}/{stem}{ext}" for stem in q.gold))
        for q in chosen
    ]


def limited(fs: FormatSet, max_files: int | None) -> FormatSet:
    """The first `max_files` files (for a quick build check); questions stay as they are."""
    if not max_files:
        return fs
    stems = sorted(fs.files)[:max_files]
    return msgspec.structs.replace(fs, files={s: fs.files[s] for s in stems})


# --- HTML -----------------------------------------------------------------------------------


def slug(text: str, taken: set[str]) -> str:
    base = "-".join(_SLUG_DROP.sub("", text.lower()).split()) or "section"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


def render_html(markdown: str, parser: MarkdownIt) -> str:
    tokens = parser.parse(markdown)
    taken: set[str] = set()
    title = ""
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open" and inline.type == "inline":
            opening.attrSet("id", slug(inline.content, taken))
            title = title or inline.content
    body = parser.renderer.render(tokens, parser.options, {})
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title or 'Untitled')}</title>\n</head>\n<body>\n{body}</body>\n"
        "</html>\n"
    )


def html_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


# --- building -------------------------------------------------------------------------------


class BuildResult(msgspec.Struct, kw_only=True):
    files: int = 0
    built: int = 0
    kept: int = 0
    failed: list[str] = msgspec.field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = msgspec.field(default_factory=list)


def source_hash(markdown: str) -> str:
    return hashlib.sha256(f"{BUILD_VERSION}\x00{markdown}".encode()).hexdigest()[:20]


def load_manifest() -> dict[str, dict[str, str]]:
    if MANIFEST.is_file():
        data: dict[str, dict[str, str]] = json.loads(MANIFEST.read_text(encoding="utf-8"))
        return data
    return {}


def save_manifest(manifest: Mapping[str, Mapping[str, str]]) -> None:
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    MANIFEST.write_text(json.dumps(manifest, indent=0, sort_keys=True), encoding="utf-8")


def stale_stems(fs: FormatSet, fmt: str, manifest: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The stems whose output is missing or was built from other Markdown."""
    folder, ext = folder_of(fs.name, fmt), EXTENSION[fmt]
    known = manifest.get(scope_of(fs.name, fmt), {})
    return [
        stem for stem, markdown in sorted(fs.files.items())
        if known.get(stem) != source_hash(markdown) or not (folder / f"{stem}{ext}").is_file()
    ]  # fmt: skip


def remove_unwanted(fs: FormatSet, fmt: str) -> int:
    folder, ext = folder_of(fs.name, fmt), EXTENSION[fmt]
    removed = 0
    for path in folder.glob(f"*{ext}"):
        if path.stem not in fs.files:
            path.unlink()
            removed += 1
    return removed


def write_text_files(fs: FormatSet, fmt: str, stems: Sequence[str]) -> list[str]:
    """md and html: written straight from the Markdown."""
    folder = folder_of(fs.name, fmt)
    folder.mkdir(parents=True, exist_ok=True)
    parser = html_parser()
    for stem in stems:
        markdown = fs.files[stem]
        text = markdown if fmt == "md" else render_html(markdown, parser)
        (folder / f"{stem}{EXTENSION[fmt]}").write_text(text, encoding="utf-8")
    return list(stems)


def print_with_chromium(fs: FormatSet, stems: Sequence[str]) -> list[str]:
    """Print each HTML file to A4 PDF through one headless Chromium (the browser's print path)."""
    from playwright.sync_api import sync_playwright

    source, target = folder_of(fs.name, "html"), folder_of(fs.name, "pdf-chromium")
    target.mkdir(parents=True, exist_ok=True)
    done: list[str] = []
    if not stems:
        return done
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            for stem in stems:
                page.set_content((source / f"{stem}.html").read_text(encoding="utf-8"))
                page.pdf(path=str(target / f"{stem}.pdf"), format="A4", margin=PDF_MARGIN)
                done.append(stem)
        finally:
            browser.close()
    return done


def libreoffice(inputs: Sequence[Path], convert_to: str, outdir: Path, infilter: str | None) -> str:
    """One soffice run over many files with a private profile; returns its output."""
    profile = Path(f"/tmp/lo-profile-{os.getpid()}")
    command = ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
               "--nolockcheck"]  # fmt: skip
    if infilter:
        command.append(f"--infilter={infilter}")
    command += ["--convert-to", convert_to, "--outdir", str(outdir), *map(str, inputs)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=LIBREOFFICE_TIMEOUT_S, check=False
    )
    return done.stdout + done.stderr


def convert_with_libreoffice(
    fs: FormatSet, fmt: str, stems: Sequence[str], infilter: str | None
) -> list[str]:
    """docx from html, pdf-libreoffice from docx, in batches; returns the stems now built."""
    source_fmt = SOURCE[fmt]
    source, target = folder_of(fs.name, source_fmt), folder_of(fs.name, fmt)
    target.mkdir(parents=True, exist_ok=True)
    convert_to = "docx:MS Word 2007 XML" if fmt == "docx" else "pdf:writer_pdf_Export"
    ext = EXTENSION[fmt]
    done: list[str] = []
    for start in range(0, len(stems), LIBREOFFICE_BATCH):
        batch = stems[start : start + LIBREOFFICE_BATCH]
        for stem in batch:  # a leftover from an earlier build must not pass as this one's output
            (target / f"{stem}{ext}").unlink(missing_ok=True)
        inputs = [source / f"{stem}{EXTENSION[source_fmt]}" for stem in batch]
        output = libreoffice(inputs, convert_to, target, infilter if fmt == "docx" else None)
        built = [stem for stem in batch if (target / f"{stem}{ext}").is_file()]
        if len(built) < len(batch):
            print(f"  soffice left {len(batch) - len(built)} of {len(batch)} files unconverted; "
                  f"its output ends: {output[-400:]!r}", flush=True)  # fmt: skip
        done += built
        print(f"  {fmt}: {start + len(batch)}/{len(stems)} converted", flush=True)
    return done


def docx_heading_share(folder: Path, stems: Iterable[str]) -> tuple[int, int, list[str]]:
    """(files with a Heading N paragraph style, files checked, a few without)."""
    with_headings, checked, without = 0, 0, []
    for stem in stems:
        path = folder / f"{stem}.docx"
        if not path.is_file():
            continue
        checked += 1
        with zipfile.ZipFile(path) as archive:
            if DOCX_HEADING_STYLE.search(archive.read("word/document.xml")):
                with_headings += 1
            elif len(without) < EXAMPLES_KEPT:
                without.append(path.name)
    return with_headings, checked, without


def build_format(
    fs: FormatSet, fmt: str, manifest: dict[str, dict[str, str]], infilter: str | None,
    force: bool = False,
) -> BuildResult:  # fmt: skip
    started = time.perf_counter()
    stale = sorted(fs.files) if force else stale_stems(fs, fmt, manifest)
    builders: dict[str, Callable[[], list[str]]] = {
        "md": lambda: write_text_files(fs, "md", stale),
        "html": lambda: write_text_files(fs, "html", stale),
        "pdf-chromium": lambda: print_with_chromium(fs, stale),
        "docx": lambda: convert_with_libreoffice(fs, "docx", stale, infilter),
        "pdf-libreoffice": lambda: convert_with_libreoffice(fs, "pdf-libreoffice", stale, None),
    }
    built = builders[fmt]()
    known = manifest.setdefault(scope_of(fs.name, fmt), {})
    for stem in built:
        known[stem] = source_hash(fs.files[stem])
    save_manifest(manifest)
    result = BuildResult(
        files=len(fs.files), built=len(built), kept=len(fs.files) - len(stale),
        failed=sorted(set(stale) - set(built)), seconds=round(time.perf_counter() - started, 2),
    )  # fmt: skip
    if fmt == "docx":
        result.warnings += docx_warnings(fs)
    return result


def docx_warnings(fs: FormatSet) -> list[str]:
    with_headings, checked, without = docx_heading_share(folder_of(fs.name, "docx"), fs.files)
    if checked and with_headings < checked:
        missing = checked - with_headings
        return [
            f"{missing} of {checked} DOCX files have no Heading N paragraph style "
            f"(LibreOffice's HTML import lost the headings), e.g. {', '.join(without)}"
        ]
    return []


def build_line(scope: str, result: BuildResult, removed: int) -> str:
    return (
        f"build {scope:<26} {result.files:5d} files: {result.built:5d} built, "
        f"{result.kept:5d} kept, {removed} removed, {len(result.failed)} failed "
        f"in {result.seconds:7.1f} s"
    )


def build_all(
    sets: Sequence[FormatSet], formats: Sequence[str], prune: bool, infilter: str | None,
    force: bool = False,
) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Every wanted format and the formats it is made from, in dependency order; `force`
    rebuilds the wanted formats (not their sources) whatever the manifest says."""
    needed = set(formats)
    for fmt in formats:
        while fmt in SOURCE:
            fmt = SOURCE[fmt]
            needed.add(fmt)
    manifest = load_manifest()
    results: dict[str, dict[str, Any]] = {}
    try:
        for fs in sets:
            for fmt in (f for f in FORMATS if f in needed):
                result = build_format(fs, fmt, manifest, infilter, force and fmt in formats)
                removed = remove_unwanted(fs, fmt) if prune else 0
                print(build_line(scope_of(fs.name, fmt), result, removed), flush=True)
                for warning in result.warnings:
                    print(f"  WARNING: {warning}", flush=True)
                if result.failed:
                    print(f"  failed: {', '.join(result.failed[:EXAMPLES_KEPT])}", flush=True)
                results[scope_of(fs.name, fmt)] = msgspec.to_builtins(result)
    finally:
        shutil.rmtree(f"/tmp/lo-profile-{os.getpid()}", ignore_errors=True)
    return results


# --- ingesting ------------------------------------------------------------------------------


def ingest_scope(
    graph: Graph, embedder: SentenceTransformerEmbedder, settings: Settings, set_name: str,
    fmt: str,
) -> dict[str, Any]:  # fmt: skip
    scope = scope_of(set_name, fmt)
    started = time.perf_counter()
    done: IngestReport = ingest(
        graph, embedder, folder_of(set_name, fmt), IngestOptions(scope=scope, prune=True),
        settings.ingest,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    files = len(done.added) + len(done.updated) + len(done.unchanged) + len(done.restored)
    pages = int(getattr(done, "pages", 0) or 0)
    figures = {
        "files": files, "added": len(done.added), "updated": len(done.updated),
        "unchanged": len(done.unchanged), "removed": len(done.removed),
        "failed": done.failed_files, "pages": pages, "paragraphs": done.paragraphs_written,
        "formats": dict(getattr(done, "formats", {}) or {}), "seconds": round(seconds, 2),
        "pages_per_s": round(pages / seconds, 2) if seconds else None,
        "paragraphs_per_s": round(done.paragraphs_written / seconds, 2) if seconds else None,
        "problems": [f"{p.path}:{p.line}: {p.severity}: {p.message}" for p in done.problems],
    }  # fmt: skip
    print(f"ingest {scope:<26} {files:5d} files ({figures['added']} added, "
          f"{figures['updated']} updated, {figures['unchanged']} unchanged, "
          f"{len(done.failed_files)} failed), {pages} pages, {done.paragraphs_written} paragraphs "
          f"in {seconds:7.1f} s: {figures['pages_per_s']} pages/s, "
          f"{figures['paragraphs_per_s']} paragraphs/s", flush=True)  # fmt: skip
    for problem in figures["problems"][:EXAMPLES_KEPT]:
        print(f"  {problem}", flush=True)
    return figures


# --- asking ---------------------------------------------------------------------------------


def recording(ask: Ask, citations: list[list[dict[str, Any]]]) -> Ask:
    """`ask`, keeping each response's citations (path, headingPath, quote, offsets)."""

    def wrapped(question: str, scope: str | None, top_k: int) -> dict[str, Any]:
        response = ask(question, scope, top_k)
        citations.append([
            {k: c.get(k) for k in ("path", "headingPath", "quote", "startOffset", "endOffset")}
            for c in response.get("citations") or ()
        ])  # fmt: skip
        return response

    return wrapped


def ask_all(
    graph: Graph, embedder: SentenceTransformerEmbedder, settings: Settings, fs: FormatSet,
    fmt: str, limit: int | None,
) -> tuple[list[Outcome], list[list[dict[str, Any]]]]:  # fmt: skip
    def ask(question: str, scope: str | None, top_k: int) -> dict[str, Any]:
        return answer_question(
            graph, embedder, question, scope=scope or "", top_k=top_k,
            settings=settings.pipeline, answer_settings=settings.answer,
            conflict_settings=settings.conflicts,
        )  # fmt: skip

    citations: list[list[dict[str, Any]]] = []
    scope = scope_of(fs.name, fmt)
    started = time.perf_counter()
    outcomes = list(
        run_questions(recording(ask, citations), questions_for(fs, fmt, limit), scope, TOP_K)
    )
    write_outcomes(OUTCOMES / f"{scope}.jsonl", outcomes)
    (OUTCOMES / f"{scope}.citations.jsonl").write_text(
        "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in citations), encoding="utf-8"
    )
    print(f"asked  {scope:<26} {len(outcomes)} questions in "
          f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
    return outcomes, citations


def saved_answers(scope: str) -> tuple[list[Outcome], list[list[dict[str, Any]]]]:
    """The outcomes and citations an earlier run wrote (--reuse-answers)."""
    decoder = msgspec.json.Decoder(Outcome)
    with (OUTCOMES / f"{scope}.jsonl").open(encoding="utf-8") as lines:
        outcomes = [decoder.decode(line) for line in lines if line.strip()]
    with (OUTCOMES / f"{scope}.citations.jsonl").open(encoding="utf-8") as lines:
        citations = [json.loads(line) for line in lines if line.strip()]
    return outcomes, citations


# --- the quality table ----------------------------------------------------------------------

COLUMNS = ("R@1", "R@5", "F1", "refused", "BA")
COMPARED = ("R@1", "R@5", "F1")


def figures_of(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    r = report(outcomes)
    return {"R@1": r.recall["@1"], "R@5": r.recall["@5"], "F1": r.answer_f1,
            "refused": r.answerable_refused, "BA": r.balanced_abstention}  # fmt: skip


def halves(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    return {"report": list(outcomes[1::2]), "all": list(outcomes)}


def deltas(
    figures: Mapping[str, float | None], reference: Mapping[str, float | None]
) -> dict[str, float | None]:
    return {
        k: None if figures[k] is None or reference[k] is None
        else round(float(figures[k] or 0) - float(reference[k] or 0), 4)
        for k in COLUMNS
    }  # fmt: skip


def quality_table(
    set_name: str, by_format: Mapping[str, Sequence[Outcome]]
) -> tuple[dict[str, Any], list[str]]:
    """Figures per format and half, their difference from md, and the breaches of tolerance."""
    table: dict[str, Any] = {}
    breaches: list[str] = []
    reference = {part: figures_of(o) for part, o in halves(by_format.get("md", [])).items()}
    lines = [f"{'':<36} " + " ".join(f"{c:>7}" for c in COLUMNS) + "   "
             + " ".join(f"{'d' + c:>7}" for c in COMPARED)]  # fmt: skip
    for fmt, outcomes in by_format.items():
        for part, chosen in halves(outcomes).items():
            figures = figures_of(chosen)
            delta = deltas(figures, reference[part]) if "md" in by_format else {}
            flags = [k for k in COMPARED if abs(delta.get(k) or 0.0) > TOLERANCE]
            breaches += [f"{scope_of(set_name, fmt)} ({part}) {k} {delta[k]:+.3f}" for k in flags]
            table[f"{fmt}-{part}"] = {"figures": figures, "delta_from_md": delta, "flags": flags}
            lines.append(_table_line(f"{scope_of(set_name, fmt)} ({part})", figures, delta, flags))
    return table, [*lines, *(f"  FLAG |delta| > {TOLERANCE}: {b}" for b in breaches)]


def _table_line(
    label: str, figures: Mapping[str, float | None], delta: Mapping[str, float | None],
    flags: Sequence[str],
) -> str:  # fmt: skip
    def f(value: float | None, signed: bool = False) -> str:
        return "      -" if value is None else (f"{value:+7.3f}" if signed else f"{value:7.3f}")

    shown = " ".join(f(figures[c]) for c in COLUMNS)
    moved = " ".join(f(delta.get(c), signed=True) for c in COMPARED)
    return f"{label:<36} {shown}   {moved}" + (f"  !! {','.join(flags)}" if flags else "")


# --- heading-path parity --------------------------------------------------------------------


class Para(msgspec.Struct, frozen=True):
    heading_path: tuple[str, ...]
    words: frozenset[str]
    start: int
    end: int
    text: str


def words_of(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def normal_path(path: Iterable[str]) -> tuple[str, ...]:
    return tuple(" ".join(str(h).split()).casefold() for h in path)


def read_paragraphs(graph: Graph, path: str) -> list[Para]:
    rows = graph.read("explore/document_paragraphs", path=path)
    return [
        Para(normal_path(r["headingPath"] or ()), words_of(r["text"] or ""),
             int(r["startOffset"] or 0), int(r["endOffset"] or 0), r["text"] or "")
        for r in rows
    ]  # fmt: skip


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def best_match(paragraph: Para, reference: Sequence[Para]) -> Para | None:
    """The reference paragraph sharing the most words; one without words (a lone "/") matches
    the first of the same text."""
    if not paragraph.words:
        text = paragraph.text.strip()
        return next((r for r in reference if not r.words and r.text.strip() == text), None)
    scored = [(jaccard(paragraph.words, r.words), -i, r) for i, r in enumerate(reference)]
    best = max(scored, key=lambda s: (s[0], s[1]), default=None)
    return best[2] if best and best[0] > 0 else None


class DocParity(msgspec.Struct, kw_only=True):
    paragraphs: list[Para]
    equal: list[bool]  # per paragraph: heading path equals its Markdown match's
    matched: list[Para | None]
    overlap: list[float]  # per paragraph: word-set Jaccard with its Markdown match


def document_parity(paragraphs: list[Para], reference: Sequence[Para]) -> DocParity:
    matched = [best_match(p, reference) for p in paragraphs]
    equal = [m is not None and m.heading_path == p.heading_path
             for p, m in zip(paragraphs, matched, strict=True)]  # fmt: skip
    overlap = [0.0 if m is None else 1.0 if not p.words else jaccard(p.words, m.words)
               for p, m in zip(paragraphs, matched, strict=True)]  # fmt: skip
    return DocParity(paragraphs=paragraphs, equal=equal, matched=matched, overlap=overlap)


def cited_paragraph(doc: DocParity, citation: Mapping[str, Any]) -> int | None:
    """The index of the paragraph a citation quotes: by offsets, else by its words."""
    start = citation.get("startOffset")
    if isinstance(start, int):
        for i, p in enumerate(doc.paragraphs):
            if p.start <= start < p.end:
                return i
    quote = words_of(str(citation.get("quote") or ""))
    scored = [(len(quote & p.words), i) for i, p in enumerate(doc.paragraphs)]
    best = max(scored, default=(0, -1))
    return best[1] if best[0] > 0 else None


def heading_parity(
    graph: Graph, fs: FormatSet, fmt: str, citations: Sequence[Sequence[Mapping[str, Any]]]
) -> dict[str, Any]:
    md_scope, scope, ext = scope_of(fs.name, "md"), scope_of(fs.name, fmt), EXTENSION[fmt]
    docs: dict[str, DocParity] = {}
    examples: list[dict[str, Any]] = []
    counts = {"paragraphs_md": 0, "paragraphs": 0, "documents_missing": 0, "documents_empty": 0}
    short: list[tuple[float, str]] = []
    for stem in sorted(fs.files):
        reference = read_paragraphs(graph, f"{md_scope}/{stem}.md")
        own = read_paragraphs(graph, f"{scope}/{stem}{ext}")
        counts["paragraphs_md"] += len(reference)
        counts["paragraphs"] += len(own)
        counts["documents_missing"] += bool(reference) and not own  # paragraphs lost
        counts["documents_empty"] += not reference  # a heading alone: no paragraph in md either
        docs[stem] = doc = document_parity(own, reference)
        kept = word_coverage(own, reference)
        if kept < WORD_COVERAGE_GOAL:
            short.append((kept, f"{stem}{ext}"))
        examples += _mismatches(f"{stem}{ext}", doc)[: max(0, EXAMPLES_KEPT - len(examples))]
    equal = sum(sum(d.equal) for d in docs.values())
    same_words = sum(sum(o == 1.0 for o in d.overlap) for d in docs.values())
    cited = cited_parity(docs, citations, scope)
    total = counts["paragraphs"]
    return {
        **counts, "paragraphs_equal": equal,
        "share_equal": round(equal / total, 4) if total else None,
        "share_same_words": round(same_words / total, 4) if total else None,
        **cited, "examples": examples,
        "documents_short": len(short),
        "documents_short_examples": [
            {"file": name, "words_kept": round(kept, 3)}
            for kept, name in sorted(short)[:EXAMPLES_KEPT]
        ],
    }  # fmt: skip


def word_coverage(own: Sequence[Para], reference: Sequence[Para]) -> float:
    """The share of the Markdown document's distinct words found in the format's document."""
    expected = frozenset().union(*(r.words for r in reference))
    found = frozenset().union(*(p.words for p in own))
    return len(expected & found) / len(expected) if expected else 1.0


def cited_parity(
    docs: Mapping[str, DocParity], citations: Sequence[Sequence[Mapping[str, Any]]], scope: str
) -> dict[str, Any]:
    seen: dict[tuple[str, int], bool] = {}
    citing, equal, unplaced = 0, 0, 0
    for response in citations:
        for citation in response:
            path = str(citation.get("path") or "")
            stem = Path(path).stem
            doc = docs.get(stem) if path.startswith(f"{scope}/") else None
            index = cited_paragraph(doc, citation) if doc else None
            if doc is None or index is None:
                unplaced += 1
                continue
            citing += 1
            equal += doc.equal[index]
            seen[(stem, index)] = doc.equal[index]
    distinct = len(seen)
    return {
        "citations": citing + unplaced, "citations_unplaced": unplaced,
        "citations_equal": equal,
        "cited_share_equal": round(equal / citing, 4) if citing else None,
        "cited_paragraphs": distinct,
        "cited_paragraphs_share_equal":
            round(sum(seen.values()) / distinct, 4) if distinct else None,
    }  # fmt: skip


def _mismatches(name: str, doc: DocParity) -> list[dict[str, Any]]:
    return [
        {"file": name, "text": p.text[:120], "heading_path": list(p.heading_path),
         "markdown_heading_path": list(m.heading_path) if m else None}
        for p, m, ok in zip(doc.paragraphs, doc.matched, doc.equal, strict=True) if not ok
    ]  # fmt: skip


def parity_line(scope: str, parity: Mapping[str, Any]) -> str:
    def share(value: float | None) -> str:
        return "    -" if value is None else f"{value:5.3f}"

    low = (parity["cited_share_equal"] or 0) < HEADING_PARITY_GOAL
    return (f"{scope:<26} paragraphs {parity['paragraphs']:6d} (md {parity['paragraphs_md']:6d}, "
            f"{parity['documents_missing']} docs lost, {parity['documents_short']} short)  "
            f"same words "
            f"{share(parity['share_same_words'])}  heading path equal "
            f"{share(parity['share_equal'])}  cited {share(parity['cited_share_equal'])} "
            f"of {parity['citations'] - parity['citations_unplaced']} "
            f"({parity['cited_paragraphs']} distinct: "
            f"{share(parity['cited_paragraphs_share_equal'])})"
            + (f"  !! below {HEADING_PARITY_GOAL}" if low else ""))  # fmt: skip


# --- run ------------------------------------------------------------------------------------


def evaluate(
    args: argparse.Namespace, sets: Sequence[FormatSet], formats: Sequence[str],
    results: dict[str, Any],
) -> None:  # fmt: skip
    settings = Settings.from_env()
    embedder = SentenceTransformerEmbedder(settings.embedding)
    embedder.embed(["warm up"])  # load the model now, not inside the first scope's ingest time
    with graph_session(settings) as graph:
        for fs in sets:
            by_format: dict[str, list[Outcome]] = {}
            citations: dict[str, list[list[dict[str, Any]]]] = {}
            for fmt in formats:
                if not args.skip_ingest:
                    results["ingest"][scope_of(fs.name, fmt)] = ingest_scope(
                        graph, embedder, settings, fs.name, fmt
                    )
                by_format[fmt], citations[fmt] = (
                    saved_answers(scope_of(fs.name, fmt)) if fmt in args.reuse_answers
                    else ask_all(graph, embedder, settings, fs, fmt, args.limit)
                )  # fmt: skip
            table, lines = quality_table(fs.name, by_format)
            n = len(by_format[formats[0]]) if formats else 0
            print(f"\n{fs.name}: {n} questions, {len(fs.files)} files per format")
            print("\n".join(lines), flush=True)
            results["quality"][fs.name] = table
            print(f"\n{fs.name}: heading-path parity with the md scope")
            for fmt in (f for f in formats if f != "md"):
                parity = heading_parity(graph, fs, fmt, citations[fmt])
                results["heading_parity"][scope_of(fs.name, fmt)] = parity
                print(parity_line(scope_of(fs.name, fmt), parity), flush=True)
                for short in parity["documents_short_examples"][:3]:
                    print(f"  short: {short['file']} keeps {short['words_kept']:.3f} of the "
                          "Markdown words", flush=True)  # fmt: skip
            print()
            save_results(results)


def save_results(results: Mapping[str, Any]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    parser.add_argument("--sets", default=",".join(SETS), help=f"some of {', '.join(SETS)}")
    parser.add_argument(
        "--formats", default=",".join(FORMATS), help=f"some of {', '.join(FORMATS)}"
    )
    parser.add_argument("--skip-build", action="store_true", help="use the files already built")
    parser.add_argument("--skip-ingest", action="store_true", help="ask the scopes as they are")
    parser.add_argument("--build-only", action="store_true", help="build the files and stop")
    parser.add_argument(
        "--force", action="store_true",
        help="rebuild the --formats files even when their Markdown is unchanged",
    )  # fmt: skip
    parser.add_argument(
        "--reuse-answers", nargs="?", const=",".join(FORMATS), default="", metavar="FORMATS",
        help="score the last run's outcomes and citations of these formats (all when none is "
        "named) instead of asking again",
    )  # fmt: skip
    parser.add_argument("--max-files", type=int, help="build only the first N files of each set")
    parser.add_argument("--limit", type=int, help="only the first N questions of each set")
    parser.add_argument(
        "--infilter", help='LibreOffice import filter for HTML, e.g. "HTML (StarWriter)"'
    )
    args = parser.parse_args(argv)
    for option, known in (("sets", SETS), ("formats", FORMATS), ("reuse_answers", FORMATS)):
        unknown = {v for v in getattr(args, option).split(",") if v} - set(known)
        if unknown:
            parser.error(f"unknown {option}: {', '.join(sorted(unknown))}")
    args.reuse_answers = [f for f in args.reuse_answers.split(",") if f]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    eval_dir = Path(args.eval_dir)
    wanted = [s for s in args.sets.split(",") if s]
    formats = [f for f in FORMATS if f in args.formats.split(",")]
    builders = {"clapnq": clapnq_set, "s10": s10_set}
    sets = [limited(builders[name](eval_dir), args.max_files) for name in wanted]
    results: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    for key in ("build", "ingest", "quality", "heading_parity"):
        results.setdefault(key, {})
    if not args.skip_build:
        built = build_all(sets, formats, not args.max_files, args.infilter, args.force)
        for scope, result in built.items():  # a run that built nothing keeps the last timing
            if result["built"] or scope not in results["build"]:
                results["build"][scope] = result
        save_results(results)
    if args.build_only:
        return 0
    evaluate(args, sets, formats, results)
    save_results(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
