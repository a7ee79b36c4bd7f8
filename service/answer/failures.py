"""ragFailureClassifications: observed issues mapped to the pipeline stages of docs/evidence.md.

Stages: parsing_source, indexing, retrieval, reranking, context_assembly, graph_evidence,
generation, citation_verification, permission_scope. Each entry names the stage, a reason and
the evidence (decision reasons, fragment ids, gate names) an engineer can look up in the trace.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from service.answer.sufficiency import SufficiencyReview
from service.pipeline.context_pack import RagContextPack

__all__ = ["FailureClassification", "classify_failures"]


class FailureClassification(msgspec.Struct, frozen=True, kw_only=True):
    stage: str
    reason: str
    evidence: tuple[str, ...] = ()


def classify_failures(
    *,
    hits: int,
    pack: RagContextPack,
    review: SufficiencyReview,
    graph_error: str | None,
    judge_failure: str | None = None,
    release_failed: Sequence[str] = (),
    rejected_quotes: int = 0,
    unsupported_claims: int = 0,
) -> list[FailureClassification]:
    out: list[FailureClassification] = []
    decisions = pack.decisions
    if hits == 0:
        out.append(
            FailureClassification(stage="retrieval", reason="no paragraph matched in the scope")
        )
    elif (
        review.answerability is not None
        and review.status == "insufficient"
        and any(g.name == "answerability" and not g.passed for g in review.gates)
    ):
        out.append(FailureClassification(
            stage="retrieval",
            reason="the best evidence found does not answer the question",
            evidence=tuple(g.detail for g in review.gates if g.name == "answerability"),
        ))  # fmt: skip
    budget = [
        d for d in decisions if d.status in ("fragment_truncated", "fragment_dropped")
        and not d.reason.startswith(("duplicate_of", "unobserved", "empty"))
    ]  # fmt: skip
    if budget:
        out.append(FailureClassification(
            stage="context_assembly",
            reason=f"{len(budget)} fragments truncated or dropped by the context budget",
            evidence=tuple(f"{d.status}:{d.reason}:{d.fragment_id}" for d in budget[:10]),
        ))  # fmt: skip
    conflicts = [f for f in pack.fragments if f.role == "conflict"]
    if conflicts:
        out.append(FailureClassification(
            stage="context_assembly",
            reason=f"{len(conflicts)} conflicting statements in the evidence; the answer states "
            "both sides",
            evidence=tuple(f.id for f in conflicts),
        ))  # fmt: skip
    missing = [d for d in decisions if d.status == "source_window_unavailable"]
    if missing:
        evidence = tuple(
            f"source_resolver_returned_no_content:{d.role}:{d.fragment_id}" for d in missing
        )
        out.append(FailureClassification(
            stage="parsing_source",
            reason=f"{len(missing)} source windows unavailable", evidence=evidence,
        ))  # fmt: skip
    if missing or graph_error:
        out.append(FailureClassification(
            stage="graph_evidence",
            reason=graph_error or f"{len(missing)} graph neighbours known by title only",
            evidence=tuple(d.reason for d in missing),
        ))  # fmt: skip
    if judge_failure:
        out.append(FailureClassification(
            stage="generation", reason="the LLM judge failed; the deterministic review decided",
            evidence=(judge_failure,),
        ))  # fmt: skip
    if release_failed:
        out.append(FailureClassification(
            stage="generation", reason="the draft failed release gates and was revised",
            evidence=tuple(release_failed),
        ))  # fmt: skip
    if rejected_quotes or unsupported_claims:
        out.append(FailureClassification(
            stage="citation_verification",
            reason=f"{rejected_quotes} quotes did not match their source; "
            f"{unsupported_claims} claims lacked citation support",
        ))  # fmt: skip
    return out
