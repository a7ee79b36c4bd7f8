"""A long PDF through `kgs ingest`, timed as a user meets it: the acceptance of docs/formats.md
asks that a 300-page PDF ingest in under two minutes on a 2-core host.

    .venv/bin/python bench/pdf_ingest.py [--pages 300] [--corpus clapnq|s10]
                                         [--eval-dir ../shared/eval]

The PDF is printed by headless Chromium (Playwright with Debian's /usr/bin/chromium) from one
HTML document, until the print has the asked number of pages:
- clapnq: dense prose, ClapNQ passages (Apache-2.0; Wikipedia text CC BY-SA), a title per
  article as a section heading and its passages as paragraphs (about 590 words a page);
- s10: a manual's density, the Galaxy S10 manual's sections (the public S10 set), a heading
  per section and its text lines as paragraphs, the manual again when more pages are asked.

It is written under the git-ignored bench/out/pdf-ingest/<scope>/, then ingested
with real embeddings by `kgs ingest` in a subprocess, whose wall time and peak RSS are printed
with pages/s and paragraphs/s. Conversion alone is timed too (in this process).
"""

from __future__ import annotations

import argparse
import html
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from retrieval_quality import read_jsonl, s10_lines

from ingest.convert import ConvertLimits, converter_for
from ingest.lifecycle import purge
from ingest.units import document_id
from service.db import graph_session
from service.settings import Settings, project_root

OUT = project_root() / "bench" / "out" / "pdf-ingest"
SCOPE = "bench-pdf-ingest"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
PASSAGES_PER_PAGE = 3.7  # ClapNQ passages average about 110 words: three and a bit per A4 page
S10_SECTIONS_PER_PAGE = 3.6  # S10 sections average 57 words, a heading each, lines apart


def manual_html(eval_dir: Path, passages: int) -> str:
    rows = read_jsonl(eval_dir / "clapnq" / "derived" / "dev_corpus.jsonl")
    by_title: dict[str, list[str]] = {}
    for row in rows:
        by_title.setdefault(row["title"], []).append(row["text"])
    body: list[str] = ["<h1>A long manual of ClapNQ passages</h1>"]
    count = 0
    while count < passages:  # the corpus again, numbered, when more pages are asked for
        for number, (title, texts) in enumerate(by_title.items(), start=1):
            body.append(f"<h2>{count // 500 + 1}.{number} {html.escape(title)}</h2>")
            body.extend(f"<p>{html.escape(t)}</p>" for t in texts)
            count += len(texts)
            if count >= passages:
                break
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Long manual'
            "</title></head><body>" + "\n".join(body) + "</body></html>")  # fmt: skip


def s10_manual_html(eval_dir: Path, sections_wanted: int) -> str:
    sections = read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_corpus.jsonl")
    lines = s10_lines(eval_dir, sections)
    body: list[str] = ["<h1>Galaxy S10 user manual, repeated</h1>"]
    count = 0
    while count < sections_wanted:
        for number, section in enumerate(sections, start=1):
            body.append(f"<h2>{count // len(sections) + 1}.{number} "
                        f"{html.escape(section['title'])}</h2>")  # fmt: skip
            body.extend(f"<p>{html.escape(line)}</p>" for line in lines[section["sid"]])
            count += 1
            if count >= sections_wanted:
                break
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Manual'
            "</title></head><body>" + "\n".join(body) + "</body></html>")  # fmt: skip


def print_pdf(markup: str, target: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_content(markup)
        page.pdf(path=str(target), format="A4", margin={"top": "2cm", "bottom": "2cm",
                                                        "left": "2cm", "right": "2cm"})  # fmt: skip
        browser.close()


def _purge_earlier_run(path: str) -> None:
    settings = Settings.from_env()
    with graph_session(settings) as graph:
        doc_id = document_id(SCOPE, path)
        if graph.read("api/document", id=doc_id):
            purge(graph, doc_id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--corpus", choices=("clapnq", "s10"), default="clapnq")
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    args = parser.parse_args()
    folder = OUT / SCOPE
    folder.mkdir(parents=True, exist_ok=True)
    pdf = folder / "long-manual.pdf"
    started = time.perf_counter()
    eval_dir = Path(args.eval_dir)
    markup = (
        s10_manual_html(eval_dir, int(args.pages * S10_SECTIONS_PER_PAGE))
        if args.corpus == "s10" else manual_html(eval_dir, int(args.pages * PASSAGES_PER_PAGE))
    )  # fmt: skip
    print_pdf(markup, pdf)
    print(f"printed {pdf.name} ({pdf.stat().st_size:,} bytes) in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    data = pdf.read_bytes()
    started = time.perf_counter()
    converted = converter_for(pdf.name, data[:4096]).convert(data, pdf.name, ConvertLimits())
    convert_s = time.perf_counter() - started
    pages = converted.pages or 0
    print(f"conversion alone: {pages} pages in {convert_s:.1f} s ({pages / convert_s:.1f} pages/s)")
    _purge_earlier_run(f"{SCOPE}/{pdf.name}")  # every paragraph new: every vector computed
    kgs = str(Path(sys.executable).parent / "kgs")
    started = time.perf_counter()
    run = subprocess.run([kgs, "ingest", str(folder), "--no-progress"], capture_output=True,
                         text=True, check=False)  # fmt: skip
    wall = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(run.stdout, run.stderr[-2000:] if run.returncode else "", sep="")
    written = next((int(line.split()[2].rstrip(",")) for line in run.stdout.splitlines()
                    if line.startswith("paragraphs written")), 0)  # fmt: skip
    figures = {
        "corpus": args.corpus, "pages": pages, "words": len(converted.text.split()),
        "paragraphs": written, "ingest_s": round(wall, 1),
        "pages_per_s": round(pages / wall, 2), "paragraphs_per_s": round(written / wall, 1),
        "convert_s": round(convert_s, 1), "peak_rss_mib": round(peak_mib),
    }  # fmt: skip
    print(json.dumps(figures, indent=1))
    target = OUT / f"pdf_ingest_{args.corpus}.json"
    target.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
