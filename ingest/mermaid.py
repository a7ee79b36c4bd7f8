"""Edges of Mermaid flowcharts: `A[Water glass] -->|analogous to| B[Plastic cup]`.

Only the structure is read (node texts and edge labels); labels are mapped to the relation
allowlist by `relation_labels.relation_for_label`, nodes are resolved to knowledge points later.
"""

from __future__ import annotations

import re

import msgspec

__all__ = ["MermaidEdge", "parse_mermaid_edges"]

# A node reference: an id with an optional shape carrying its text.
_NODE = (
    r"(?P<{n}>[A-Za-z0-9_][\w.]*)\s*"
    r"(?:\[\[(?P<{n}a>.+?)\]\]|\[\((?P<{n}b>.+?)\)\]|\(\[(?P<{n}c>.+?)\]\)|\(\((?P<{n}d>.+?)\)\)"
    r"|\[(?P<{n}e>.+?)\]|\((?P<{n}f>.+?)\)|\{(?P<{n}g>.+?)\}|>(?P<{n}h>.+?)\])?"
)
# An edge: -->, ---, -.->, ==>, with a label as |label| or inline (-- label -->).
_EDGE = (
    r"\s*(?:--\s+(?P<inline1>[^|>]+?)\s+-->|-\.\s+(?P<inline2>[^|>]+?)\s+\.->|==\s+(?P<inline3>[^|>]+?)\s+==>"
    r"|(?:-->|---|-\.->|==>|--o|--x)\s*(?:\|(?P<piped>[^|]*)\|)?)\s*"
)
_PAIR = re.compile(_NODE.replace("{n}", "src") + _EDGE + _NODE.replace("{n}", "dst"))
_NODE_ONLY = re.compile(_NODE.replace("{n}", "node"))
_SHAPES = "abcdefgh"


class MermaidEdge(msgspec.Struct, frozen=True):
    source: str  # node text (or id when the node has no text)
    target: str
    label: str
    line_offset: int  # 0-based line inside the block


def parse_mermaid_edges(block_text: str) -> list[MermaidEdge]:
    texts: dict[str, str] = {}
    edges: list[tuple[str, str, str, int]] = []
    for line_no, raw in enumerate(block_text.splitlines()):
        line = raw.split("%%", 1)[0].strip().rstrip(";")
        if not line or line.startswith(("```", "flowchart", "graph", "subgraph", "end", "style",
                                        "classDef", "class ", "click", "linkStyle")):  # fmt: skip
            continue
        position = 0
        while True:
            match = _PAIR.search(line, position)
            if match is None:
                break
            src, dst = match.group("src"), match.group("dst")
            _remember(texts, src, _shape_text(match, "src"))
            _remember(texts, dst, _shape_text(match, "dst"))
            label = next(
                (
                    match.group(g)
                    for g in ("piped", "inline1", "inline2", "inline3")
                    if match.group(g)
                ),
                "",
            )
            edges.append((src, dst, label.strip().strip('"'), line_no))
            # Chains (A --> B --> C): continue from the target node.
            position = match.start("dst")
        for node in _NODE_ONLY.finditer(line):
            _remember(texts, node.group("node"), _shape_text(node, "node"))
    return [
        MermaidEdge(texts.get(s, s), texts.get(t, t), label, line) for s, t, label, line in edges
    ]


def _shape_text(match: re.Match[str], name: str) -> str | None:
    for shape in _SHAPES:
        value = match.group(f"{name}{shape}")
        if value:
            return value.strip().strip('"').strip()
    return None


def _remember(texts: dict[str, str], node_id: str, text: str | None) -> None:
    if text and node_id not in texts:
        texts[node_id] = text
