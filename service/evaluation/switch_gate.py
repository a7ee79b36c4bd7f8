"""A gated embedding switch (`kgs embeddings switch MODEL --gate GATES.toml --questions FILE`):
the new model is built and audited beside the active one, the gold questions are asked of it
(the active model serving everyone else meanwhile), and it is activated only if every gate
holds, or with `force`. A refusal goes on every scope's change feed as a `switchRefused` event
with the gates missed and the figures (docs/embeddings.md, "A gated switch")."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ingest.embedding_models import (
    ModelSwitchError,
    Progress,
    SwitchReport,
    activate,
    registered_space,
    switch,
)
from ingest.embeddings import ModelRoster
from service.db.graph import Graph
from service.embedding_space import active_space, trial_space
from service.evaluation.gates import Gate, Verdict, check_gates
from service.evaluation.questions import EvalQuestion
from service.evaluation.run import Ask, run_questions
from service.evaluation.scoring import report
from service.settings import EmbeddingSettings

__all__ = ["GatedSwitch", "gated_switch"]


class GatedSwitch(msgspec.Struct, frozen=True, kw_only=True):
    built: SwitchReport  # the build and audit; `built.activated` is False
    verdicts: tuple[Verdict, ...]  # the gates, as the new model met them
    activated: bool
    forced: bool  # activated although a gate was missed
    previous: str | None  # the model active before, when activated


def gated_switch(
    graph: Graph, roster: ModelRoster, spec: str, settings: EmbeddingSettings, *,
    questions: Sequence[EvalQuestion], gates: Sequence[Gate], ask: Ask, top_k: int,
    force: bool = False, progress: Progress | None = None,
) -> GatedSwitch:  # fmt: skip
    """`ask` answers as `kgs ask` does, in this thread: the trial space reaches it."""
    built = switch(graph, roster, spec, settings, activate_now=False, progress=progress)
    target = registered_space(graph, built.model)
    if target is None:
        raise ModelSwitchError(f"{built.model} was built but is not recorded")
    with trial_space(target):
        outcomes = list(run_questions(ask, questions, None, top_k))
    verdicts = tuple(check_gates(report(outcomes), list(gates)))
    missed = [v for v in verdicts if not v.passed]
    if missed and not force:
        current = active_space(graph)
        figures = {v.gate.metric: v.value for v in verdicts}
        graph.write("embeddings/record_switch_refused", modelName=built.model,
                    activeModel=current.name if current else None,
                    failed=[v.describe() for v in missed],
                    figures=msgspec.json.encode(figures).decode())  # fmt: skip
        return GatedSwitch(built=built, verdicts=verdicts, activated=False, forced=False,
                           previous=None)  # fmt: skip
    previous = activate(graph, roster, built.model, settings, progress)
    return GatedSwitch(built=built, verdicts=verdicts, activated=True, forced=bool(missed),
                       previous=previous)  # fmt: skip
