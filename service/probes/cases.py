"""Probe case files of `kgs probe` (docs/architecture.md), decoded once and strictly.

The YAML is parsed safely, then converted into frozen Structs that forbid unknown fields: a
misspelt key, a value outside its enumeration or a missing `scope` is an error naming the file,
the case and the key, never an expectation that silently does not run. Each case is converted on
its own so that the error can name the case id.

A case may list `paraphrases`: other wordings of its query, each asked the same way and held to
the query's status (knowledge_base/PROBES.md, "Paraphrases").
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import yaml
from msgspec import UNSET, UnsetType

from service.errors import KgsError
from service.graph_model import RELATION_TYPES
from service.pipeline.evidence import DecisionStatus, Role, SourceBoundary
from service.pipeline.plan import Depth

__all__ = [
    "MIN_PARAPHRASES",
    "Degradation",
    "Expect",
    "ExpectedBudget",
    "FailureStage",
    "ProbeCase",
    "ProbeFile",
    "ProbeFileError",
    "Sufficiency",
    "load_cases",
    "wording_key",
]

Sufficiency = Literal["sufficient", "borderline", "insufficient"]
Degradation = Literal[
    "none", "partial_coverage", "conflict", "stale_evidence", "insufficient_evidence"
]
FailureStage = Literal[
    "parsing_source",
    "indexing",
    "retrieval",
    "reranking",
    "context_assembly",
    "graph_evidence",
    "generation",
    "citation_verification",
    "permission_scope",
]

_Text = Annotated[str, msgspec.Meta(min_length=1)]
_Texts = tuple[_Text, ...]
_Count = Annotated[int, msgspec.Meta(ge=1)]
# Printed at the start of a result line, so no whitespace and no leading punctuation.
_CaseId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
# Fewer than three wordings says little about robustness: one odd paraphrase can pass by luck.
MIN_PARAPHRASES = 3


class ProbeFileError(KgsError, ValueError):
    """A probe case file that cannot be read, is not valid YAML or breaks the case format."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class ExpectedBudget(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The budget profile the context pack must report (ragContextPack.budget)."""

    fragments: _Count
    fragment_chars: _Count
    total_chars: _Count


class Expect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What one case expects of the answer response; every key optional.

    UNSET (not None) marks an absent key, so an explicit `key:` with no value is rejected
    instead of quietly switching the expectation off.
    """

    sufficiency: Sufficiency | UnsetType = UNSET
    degradation: Degradation | UnsetType = UNSET
    abstain: bool | UnsetType = UNSET
    answer_includes: _Texts | UnsetType = UNSET
    answer_excludes: _Texts | UnsetType = UNSET
    roles_include: tuple[Role, ...] | UnsetType = UNSET
    roles_exclude: tuple[Role, ...] | UnsetType = UNSET
    decisions_include: tuple[DecisionStatus, ...] | UnsetType = UNSET
    source_boundary: SourceBoundary | UnsetType = UNSET
    failure_stages_include: tuple[FailureStage, ...] | UnsetType = UNSET
    predecessors_include: _Texts | UnsetType = UNSET
    successors_include: _Texts | UnsetType = UNSET
    successors_exclude: _Texts | UnsetType = UNSET
    relation_kinds_include: _Texts | UnsetType = UNSET  # checked against RELATION_TYPES
    documents_include: _Texts | UnsetType = UNSET
    budget: ExpectedBudget | UnsetType = UNSET
    recovery_attempted: bool | UnsetType = UNSET


class ProbeCase(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: _CaseId
    query: _Text
    scope: _Text  # a top-level folder of the knowledge base
    expect: Expect
    depth: Depth | None = None  # None: the depth the planner chooses
    # Other wordings of `query`. UNSET rather than () so that an explicit empty list is an
    # error instead of a case that quietly checks no paraphrase.
    paraphrases: tuple[_Text, ...] | UnsetType = UNSET
    # Why the case does not pass yet, when that is known and accepted for now: it still runs and
    # its line says GAP, but it does not fail the suite (a known gap that passes says so).
    known_gap: _Text | None = None

    @property
    def wordings(self) -> tuple[str, ...]:
        """The paraphrases, () when the case has none."""
        return () if isinstance(self.paraphrases, UnsetType) else self.paraphrases


class ProbeFile(msgspec.Struct, frozen=True, kw_only=True):
    path: Path
    cases: tuple[ProbeCase, ...]


class _FileShape(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    cases: list[Any]


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key repeated in one mapping (PyYAML keeps the last silently)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node)
        if not isinstance(key, Hashable):
            continue  # construct_mapping reports unhashable keys itself
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_cases(path: Path) -> ProbeFile:
    """Read and validate a probe case file; raise ProbeFileError naming what is wrong."""
    try:
        with path.open(encoding="utf-8") as stream:
            raw = yaml.load(stream, Loader=_StrictLoader)  # a SafeLoader: no arbitrary objects
    except yaml.YAMLError as err:
        raise ProbeFileError(path, f"invalid YAML: {err}") from err
    except (OSError, UnicodeDecodeError) as err:
        raise ProbeFileError(path, f"cannot read the file: {err}") from err
    if not isinstance(raw, dict):
        raise ProbeFileError(path, "expected a mapping with a top-level `cases:` list")
    try:
        shape = msgspec.convert(raw, _FileShape, strict=True)
    except msgspec.ValidationError as err:
        raise ProbeFileError(path, f"top level: {err}") from err
    if not shape.cases:
        raise ProbeFileError(path, "`cases:` is empty: a probe file needs at least one case")
    cases = tuple(_decode_case(path, index, item) for index, item in enumerate(shape.cases))
    _reject_duplicate_ids(path, cases)
    return ProbeFile(path=path, cases=cases)


def _decode_case(path: Path, index: int, raw: Any) -> ProbeCase:
    raw_id = raw.get("id") if isinstance(raw, dict) else None
    where = f"case {raw_id!r} (cases[{index}])" if isinstance(raw_id, str) else f"cases[{index}]"
    try:
        case = msgspec.convert(raw, ProbeCase, strict=True)
    except msgspec.ValidationError as err:
        raise ProbeFileError(path, f"{where}: {err}") from err
    _check_paraphrases(path, where, case)
    kinds = case.expect.relation_kinds_include
    unknown = [kind for kind in kinds if kind not in RELATION_TYPES] if kinds else []
    if unknown:
        raise ProbeFileError(
            path,
            f"{where}: relation_kinds_include has unknown relation type(s) "
            f"{', '.join(map(repr, unknown))}; allowed: {', '.join(RELATION_TYPES)}",
        )
    return case


def wording_key(text: str) -> str:
    """What two wordings must differ in: their words, not letter case, spacing or punctuation
    ("What is X?" and "what is x" are one wording). \\w also matches CJK characters."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def _check_paraphrases(path: Path, where: str, case: ProbeCase) -> None:
    if isinstance(case.paraphrases, UnsetType):
        return
    if len(case.paraphrases) < MIN_PARAPHRASES:
        raise ProbeFileError(
            path,
            f"{where}: paraphrases needs at least {MIN_PARAPHRASES} other wordings of the "
            f"query, got {len(case.paraphrases)}",
        )
    seen = {wording_key(case.query): "the query"}
    for index, paraphrase in enumerate(case.paraphrases):
        key = wording_key(paraphrase)
        if not key:
            raise ProbeFileError(path, f"{where}: paraphrases[{index}] {paraphrase!r} has no words")
        if key in seen:
            raise ProbeFileError(
                path,
                f"{where}: paraphrases[{index}] {paraphrase!r} repeats {seen[key]} "
                "(letter case, spacing and punctuation do not make a paraphrase)",
            )
        seen[key] = f"paraphrases[{index}]"


def _reject_duplicate_ids(path: Path, cases: tuple[ProbeCase, ...]) -> None:
    first_index: dict[str, int] = {}
    for index, case in enumerate(cases):
        if case.id in first_index:
            raise ProbeFileError(
                path,
                f"duplicate case id {case.id!r} (cases[{first_index[case.id]}] and cases[{index}])",
            )
        first_index[case.id] = index
