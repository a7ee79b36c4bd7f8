"""YAML front matter: decoded into Structs and validated, with the line of every problem."""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec
import yaml

from service.errors import KgsError
from service.graph_model import RELATION_TYPES

__all__ = ["FrontMatter", "KnowledgePointSpec", "RelationSpec", "parse_front_matter"]

KNOWN_KEYS = frozenset(
    {"id", "title", "aliases", "kind", "summary", "updated", "validUntil", "supersededBy",
     "relations", "knowledge_points"}
)  # fmt: skip
_DEFAULT_CONFIDENCE = 0.8


class RelationSpec(msgspec.Struct, frozen=True):
    type: str
    target: str
    confidence: float
    line: int
    source: str | None = None  # a declared knowledge point's id; None: the document's own


class KnowledgePointSpec(msgspec.Struct, frozen=True):
    id: str
    title: str
    aliases: tuple[str, ...] = ()
    kind: str = "concept"
    summary: str = ""


class FrontMatter(msgspec.Struct, frozen=True):
    id: str | None = None
    title: str | None = None
    aliases: tuple[str, ...] = ()
    kind: str | None = None
    summary: str | None = None
    updated: str | None = None
    valid_until: str | None = None
    superseded_by: str | None = None
    relations: tuple[RelationSpec, ...] = ()
    knowledge_points: tuple[KnowledgePointSpec, ...] = ()


class FrontMatterError(KgsError, ValueError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def parse_front_matter(text: str, first_line: int) -> tuple[FrontMatter, list[tuple[int, str]]]:
    """Decode front matter; returns it with (line, message) warnings for the parts dropped.

    Raises FrontMatterError (with its line) when the YAML itself is malformed or not a mapping.
    """
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + (mark.line if mark else 0)
        raise FrontMatterError(f"malformed YAML front matter: {error.problem}", line) from None
    if data is None:
        return FrontMatter(), []
    if not isinstance(data, dict) or not isinstance(root, yaml.MappingNode):
        raise FrontMatterError("front matter must be a YAML mapping", first_line)
    lines = {key.value: first_line + key.start_mark.line for key, _ in root.value}
    items = {key.value: value for key, value in root.value}
    warnings = [
        (lines[key], f"unknown front matter key {key!r} ignored")
        for key in data
        if key not in KNOWN_KEYS
    ]
    relations = _relations(data.get("relations"), items.get("relations"), first_line, warnings)
    declared = _knowledge_points(data.get("knowledge_points"), lines, warnings)
    for spec in declared:
        relations += _relations(
            _raw_declared_relations(data, spec.id), None, lines.get("knowledge_points", first_line),
            warnings, source=spec.id,
        )  # fmt: skip
    return (
        FrontMatter(
            id=_text(data.get("id")),
            title=_text(data.get("title")),
            aliases=_strings(data.get("aliases")),
            kind=_text(data.get("kind")),
            summary=_text(data.get("summary")),
            updated=_date(data.get("updated")),
            valid_until=_date(data.get("validUntil")),
            superseded_by=_text(data.get("supersededBy")),
            relations=tuple(relations),
            knowledge_points=tuple(declared),
        ),
        warnings,
    )


def _relations(
    raw: Any,
    node: yaml.Node | None,
    first_line: int,
    warnings: list[tuple[int, str]],
    *,
    source: str | None = None,
) -> list[RelationSpec]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        warnings.append((first_line, "'relations' must be a list; ignored"))
        return []
    item_lines = (
        [first_line + item.start_mark.line for item in node.value]
        if isinstance(node, yaml.SequenceNode)
        else [first_line] * len(raw)
    )
    out: list[RelationSpec] = []
    for item, line in zip(raw, item_lines, strict=True):
        if not isinstance(item, dict) or "type" not in item or "target" not in item:
            warnings.append((line, "a relation needs 'type' and 'target'; ignored"))
            continue
        kind = str(item["type"]).strip().upper().replace(" ", "_")
        if kind not in RELATION_TYPES:
            warnings.append((line, f"unknown relation type {item['type']!r}; ignored"))
            continue
        confidence = item.get("confidence", _DEFAULT_CONFIDENCE)
        if not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
            warnings.append((line, f"confidence must be a number in [0, 1], got {confidence!r}"))
            continue
        out.append(RelationSpec(kind, str(item["target"]).strip(), float(confidence), line, source))
    return out


def _knowledge_points(
    raw: Any, lines: dict[str, int], warnings: list[tuple[int, str]]
) -> list[KnowledgePointSpec]:
    if raw is None:
        return []
    line = lines.get("knowledge_points", 0)
    if not isinstance(raw, list):
        warnings.append((line, "'knowledge_points' must be a list; ignored"))
        return []
    out: list[KnowledgePointSpec] = []
    for item in raw:
        if not isinstance(item, dict) or not item.get("id"):
            warnings.append((line, "a declared knowledge point needs an 'id'; ignored"))
            continue
        out.append(
            KnowledgePointSpec(
                id=str(item["id"]).strip(),
                title=_text(item.get("title")) or str(item["id"]),
                aliases=_strings(item.get("aliases")),
                kind=_text(item.get("kind")) or "concept",
                summary=_text(item.get("summary")) or "",
            )
        )
    return out


def _raw_declared_relations(data: dict[str, Any], kp_id: str) -> Any:
    for item in data.get("knowledge_points") or []:
        if isinstance(item, dict) and str(item.get("id", "")).strip() == kp_id:
            return item.get("relations")
    return None


def _text(value: Any) -> str | None:
    return None if value is None else str(value).strip() or None


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(dict.fromkeys(str(v).strip() for v in items if str(v).strip()))


def _date(value: Any) -> str | None:
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return _text(value)
