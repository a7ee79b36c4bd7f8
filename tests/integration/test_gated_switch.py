"""A gated embedding switch, run as a user runs it (`kgs embeddings switch MODEL --gate GATES
--questions FILE` in a subprocess) against the real Neo4j: the gold questions share no word
with their pages, so only the embedding model finds them. The active model meets the gate
(`kgs eval` exits 0); a deliberately broken model (the same one truncated to 2 dimensions) is
built, asked the questions, missed the gate: the CLI exits 1, the model is not activated, and
every scope's change feed says why. `--force` then activates it anyway, and the test rolls it
back and retires it."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.embedding_models import list_models, retire, rollback
from ingest.embeddings import ModelRoster, SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.embedding_space import active_space, forget_active_space
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

SCOPE = f"gated-{uuid.uuid4().hex[:8]}"
ORIGINAL = "all-MiniLM-L6-v2@384"
BROKEN = "all-MiniLM-L6-v2@2"
KGS = str(Path(sys.executable).with_name("kgs"))
RUN_TIMEOUT_S = 900
PAGES = {  # page -> (its text, a question that shares none of its words)
    "bees.md": ("Honeybees collect nectar from flowers and turn it into honey inside the hive.",
                "Which insects make a sweet syrup in their nest?"),
    "lighthouse.md": ("A lighthouse is a tower with a bright lamp that warns ships away from "
                      "rocks at night.", "What building guides sailors with a beam after dark?"),
    "sourdough.md": ("Sourdough bread rises because wild yeast and bacteria ferment the dough.",
                     "How does a loaf get airy from a natural leaven?"),
    "glacier.md": ("Glaciers are huge masses of ice that slowly move down valleys and carve the "
                   "land.", "Which frozen rivers grind mountainsides as they creep?"),
    "violin.md": ("A violin is a string instrument played with a bow; its sound comes from "
                  "vibrating strings.", "Which fiddle makes music when horsehair is drawn "
                  "across it?"),
    "compost.md": ("Compost is made when garden waste and kitchen scraps decay into rich soil.",
                   "How do leftovers rot into fertile earth?"),
}  # fmt: skip
GATE = "[min]\nrecall_at_1 = 0.6\n"


@pytest.fixture(scope="module")
def gold(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, Path]]:  # fmt: skip
    root = tmp_path_factory.mktemp("gated-kb")
    (root / SCOPE).mkdir()
    rows = []
    for name, (text, question) in PAGES.items():
        title = name.removesuffix(".md").capitalize()
        (root / SCOPE / name).write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
        rows.append({"id": name, "scope": SCOPE, "question": question, "answerable": True,
                     "gold": [f"{SCOPE}/{name}"]})  # fmt: skip
    assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).added
    questions, gate = root / "gold.jsonl", root / "gate.toml"
    questions.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    gate.write_text(GATE, encoding="utf-8")
    try:
        yield questions, gate
    finally:
        forget_active_space()
        for model in list_models(graph):  # back to the original model only
            if model["name"] != ORIGINAL:
                if model["status"] == "active":
                    rollback(graph, ModelRoster(settings.embedding), settings.embedding)
                retire(graph, str(model["name"]), settings.embedding)
        forget_active_space()
        delete_scope(graph, SCOPE)


def kgs(cli_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KGS, *args], env=cli_env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, cwd=project_root())  # fmt: skip


def feed(graph: Graph) -> list[dict[str, Any]]:
    return graph.read("api/changes_page", scope=SCOPE, after=0, limit=100)


def test_a_broken_model_misses_the_gate_and_is_not_activated_unless_forced(
    gold: tuple[Path, Path], cli_env: dict[str, str], graph: Graph
) -> None:
    questions, gate = gold
    meets = kgs(cli_env, "eval", str(questions), "--gate", str(gate))
    assert meets.returncode == 0, meets.stdout + meets.stderr  # the active model meets it

    refused = kgs(cli_env, "embeddings", "switch", BROKEN, "--gate", str(gate),
                  "--questions", str(questions))  # fmt: skip
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "GATE FAILED recall_at_1" in refused.stderr and "NOT activated" in refused.stderr
    forget_active_space()
    active = active_space(graph)
    assert active is not None and active.name == ORIGINAL
    states = {m["name"]: m["status"] for m in list_models(graph)}
    assert states[BROKEN] == "ready"  # built, kept for a forced or later activation
    [event] = [e for e in feed(graph) if e["kind"] == "switchRefused"]
    assert event["model"] == BROKEN and event["previousModel"] == ORIGINAL
    assert event["failedGates"] and "recall_at_1" in event["failedGates"][0]

    forced = kgs(cli_env, "embeddings", "switch", BROKEN, "--gate", str(gate),
                 "--questions", str(questions), "--force")  # fmt: skip
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert "forced past a missed gate" in forced.stdout
    forget_active_space()
    active = active_space(graph)
    assert active is not None and active.name == BROKEN
    kinds = [e["kind"] for e in feed(graph)]
    assert kinds.count("switchRefused") == 1 and kinds[-1] == "modelActivated"


def test_a_half_given_gate_is_refused_before_any_work(
    gold: tuple[Path, Path], cli_env: dict[str, str]
) -> None:
    questions, gate = gold
    for args in (("--gate", str(gate)), ("--questions", str(questions)), ("--force",)):
        done = kgs(cli_env, "embeddings", "switch", "all-MiniLM-L6-v2@128", *args)
        assert done.returncode == 1, (args, done.stderr)
        assert "--gate" in done.stderr and "embedding head paragraphs" not in done.stderr
