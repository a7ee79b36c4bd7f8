"""`kgs explain`: each stage's Cypher, ready to paste into Neo4j Browser (`:param` lines, then
the statement exactly as the pipeline ran it)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from service.db.cypher_registry import CypherRegistry, with_vector_property

__all__ = ["browser_statements", "cypher_literal", "render_explain"]

_STAGES = {
    "retrieval": "span retrieval",
    "graph": "graph context",
    "evidence": "document augmentation",
}
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def cypher_literal(value: Any) -> str:
    """A Cypher literal for a parameter value (strings single-quoted and escaped)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, Mapping):
        items = ", ".join(f"{_key(k)}: {cypher_literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    return cypher_literal(json.loads(json.dumps(value, default=str)))


def _key(name: str) -> str:
    return name if _IDENTIFIER.match(name) else "`" + name.replace("`", "``") + "`"


def browser_statements(
    calls: Sequence[Mapping[str, Any]], registry: CypherRegistry
) -> list[dict[str, Any]]:
    """Each call as the evidence inspector lists it: stage, statement, rows, time, parameters,
    and `browserText` (its `:param` lines, then the statement) to paste into Neo4j Browser."""
    return [
        {
            "stage": _STAGES.get(str(call["statement"]).split("/", 1)[0], "other"),
            "statement": str(call["statement"]),
            "rows": call["rows"],
            "elapsedMs": call["elapsedMs"],
            "parameters": call["parameters"],
            "browserText": "\n".join(
                [f":param {_key(k)} => {cypher_literal(v)};" for k, v in call["parameters"].items()]
                + [_text(registry, call) + ";"]
            ),
        }
        for call in calls
    ]


def _text(registry: CypherRegistry, call: Mapping[str, Any]) -> str:
    """The statement as it ran (a model's vector property in place, as Graph.read puts it)."""
    statement = registry.get(str(call["statement"]))
    return with_vector_property(statement, call["parameters"]).text


def render_explain(calls: Sequence[Mapping[str, Any]], registry: CypherRegistry) -> str:
    lines: list[str] = []
    stage = None
    for call in calls:
        name = str(call["statement"])
        current = _STAGES.get(name.split("/", 1)[0], name.split("/", 1)[0])
        if current != stage:
            stage = current
            lines += ["", f"// ===== {stage} ====="]
        lines.append(f"// {name}.cypher: {call['rows']} rows in {call['elapsedMs']} ms")
        lines += [f":param {k} => {cypher_literal(v)};" for k, v in call["parameters"].items()]
        lines += [_text(registry, call) + ";", ""]
    return "\n".join(lines).strip() + "\n"
