"""Step 1: the knowledge base the load runs against, generated Markdown documents (seeded: front
matter with title, aliases and two relations to other documents, an H1 and paragraphs of
sentences of the shipped knowledge base recombined), ingested with `kgs ingest --prune`."""

from __future__ import annotations

import random
import shutil
import subprocess
import time
from dataclasses import dataclass

from load_bench import KGS

from ingest.markdown import parse_markdown
from ingest.units import document_id
from service.settings import project_root

ROOT = project_root()
SCOPE = "faults-load"
KB = ROOT / ".kgs" / "faults-load" / "kb"  # .kgs/ is git-ignored
KB_STAMP = ".generated"  # generator version and parameters of the folder's content
GENERATOR_VERSION = "2"
KB_PARAGRAPHS = 3  # per base document
KB_RELATIONS = 2  # front-matter relations per base document
SENTENCES_PER_PARAGRAPH = 2
SEED = 11
INGEST_TIMEOUT_S = 1800.0
MARKUP = frozenset("[]`|*_<>")  # sentences with links or markup would add relations and noise


@dataclass(frozen=True)
class BaseDocument:
    point_id: str
    title: str
    path: str  # in the scope

    @property
    def id(self) -> str:
        return document_id(SCOPE, f"{SCOPE}/{self.path}")


def sentences() -> list[str]:
    """Prose sentences of the shipped general knowledge base (our own text)."""
    found: list[str] = []
    for file in sorted((ROOT / "knowledge_base").glob("*/*.md")):
        for block in parse_markdown(file.read_text(encoding="utf-8")).blocks:
            if block.kind == "paragraph":
                found += [
                    s.strip()
                    for s in block.text.replace("\n", " ").split(". ")
                    if 40 <= len(s.strip()) <= 240 and not MARKUP.intersection(s)
                ]
    return [s if s.endswith(".") else s + "." for s in dict.fromkeys(found)]


def base_documents(count: int) -> list[BaseDocument]:
    rng = random.Random(SEED)
    adjectives = (
        "amber",
        "basalt",
        "cobalt",
        "dune",
        "ember",
        "fjord",
        "granite",
        "harbor",
        "indigo",
        "juniper",
        "kelp",
        "lichen",
        "marble",
        "nickel",
        "onyx",
        "pewter",
    )
    nouns = (
        "relay",
        "valve",
        "ledger",
        "beacon",
        "spindle",
        "lattice",
        "turbine",
        "gasket",
        "prism",
        "sluice",
        "capstan",
        "damper",
        "gimbal",
        "hopper",
        "trellis",
        "winch",
    )
    docs = []
    for n in range(count):
        title = f"{rng.choice(adjectives).title()} {rng.choice(nouns)} {n:05d}"
        docs.append(BaseDocument(point_id=f"fl-{n:05d}", title=title, path=f"fl-{n:05d}.md"))
    return docs  # fmt: skip


def base_text(doc: BaseDocument, docs: list[BaseDocument], pool: list[str],
              rng: random.Random) -> str:  # fmt: skip
    targets = rng.sample(docs, KB_RELATIONS + 1)
    relations = [t for t in targets if t.point_id != doc.point_id][:KB_RELATIONS]
    kinds = ("DEPENDS_ON", "PART_OF", "REFERENCES", "ENABLES")
    lines = ["---", f"id: {doc.point_id}", f"title: {doc.title}",
             f"aliases: [{doc.title.lower().rsplit(' ', 1)[0]} {int(doc.point_id[3:])}]",
             "kind: component", "updated: 2026-01-15", "relations:"]  # fmt: skip
    lines += [f"  - {{type: {rng.choice(kinds)}, target: {t.point_id}, confidence: 0.8}}"
              for t in relations]  # fmt: skip
    lines += ["---", "", f"# {doc.title}", ""]
    first = f"The {doc.title} works together with the {relations[0].title}."
    for number in range(KB_PARAGRAPHS):
        if number == 1:
            lines += ["## Operation", ""]
        body = " ".join(rng.sample(pool, SENTENCES_PER_PARAGRAPH))
        lines += [f"{first} {body}" if number == 0 else body, ""]
    return "\n".join(lines)


def prepare_knowledge_base(count: int) -> list[BaseDocument]:
    """Generate the folder unless it already holds this generator's output, then ingest it."""
    docs = base_documents(count)
    stamp = f"{GENERATOR_VERSION} {count} {KB_PARAGRAPHS} {SENTENCES_PER_PARAGRAPH} {SEED}"
    marker = KB / KB_STAMP
    if not (marker.is_file() and marker.read_text() == stamp):
        shutil.rmtree(KB, ignore_errors=True)
        KB.mkdir(parents=True)
        pool, rng = sentences(), random.Random(SEED)
        for doc in docs:
            (KB / doc.path).write_text(base_text(doc, docs, pool, rng), encoding="utf-8")
        marker.write_text(stamp)  # hidden: discovery skips it (and it is not Markdown)
        print(f"generated {count} documents in {KB}", flush=True)
    print(f"ingesting {KB} into scope {SCOPE} (unchanged documents are skipped)", flush=True)
    started = time.monotonic()
    done = subprocess.run(
        [str(KGS), "ingest", str(KB), "--scope", SCOPE, "--prune", "--no-progress"],
        check=True, timeout=INGEST_TIMEOUT_S, capture_output=True, text=True,
    )  # fmt: skip
    summary = done.stdout.strip().splitlines()
    print("  " + "\n  ".join(summary[:4]) + f"\n  ({time.monotonic() - started:.0f} s)", flush=True)
    return docs
