"""Named Cypher statements, one per file under cypher/, loaded by name.

A statement's name is its path below cypher/ without the suffix (`schema/paragraph_vector`,
`admin/ping`). Each file starts with `//` comment lines; one of them declares the mode:

    // mode: read      the statement only reads (checked against EXPLAIN by the test suite)
    // mode: write     the statement writes graph data
    // mode: schema    an index or constraint command

A read that returns plain values (no nodes or paths) may also declare its result columns,
`// returns: paragraphId, documentId, score`, on as many such lines as it needs. Its rows then
travel packed: the service runs the statement inside `CALL () { ... }` and receives one record
holding the list of rows. Bolt sends every row as a message of its own, and the Python driver
spends some 45 µs of CPU on each (two socket reads and its framing), so a 40-row read costs
1-2 ms more unpacked; the integration tests check each declaration against the columns EXPLAIN
reports.

The rest of the file is the statement, exactly as a person can paste it into Neo4j Browser after
setting its `$parameters` with `:param`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import msgspec

__all__ = ["CypherRegistry", "CypherRegistryError", "Statement"]

Mode = Literal["read", "write", "schema"]
_MODES: tuple[Mode, ...] = ("read", "write", "schema")
_MODE_LINE = re.compile(r"^//\s*mode:\s*(\w+)\s*$")
_RETURNS_LINE = re.compile(r"^//\s*returns:\s*(.*)$")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


class CypherRegistryError(LookupError):
    """A statement file is malformed, or a name is not in the registry."""


class Statement(msgspec.Struct, frozen=True):
    name: str
    mode: Mode
    text: str  # the statement without its header comments
    path: Path
    columns: tuple[str, ...] = ()  # declared by `// returns:`; its rows then travel packed

    @property
    def packed_text(self) -> str:
        """The statement as it runs when its columns are declared: every row in one record."""
        fields = ", ".join(f"{c}: {c}" for c in self.columns)
        return f"CALL () {{\n{self.text}\n}}\nRETURN collect({{{fields}}}) AS rows"

    @property
    def parameters(self) -> tuple[str, ...]:
        """The `$names` the statement expects, in first-use order."""
        return tuple(dict.fromkeys(_PARAM.findall(_strip_strings(self.text))))


class CypherRegistry:
    """All statements of one cypher/ directory, parsed and validated once at start-up."""

    def __init__(self, statements: dict[str, Statement]) -> None:
        self._statements = statements

    @classmethod
    def load(cls, directory: Path) -> CypherRegistry:
        if not directory.is_dir():
            raise CypherRegistryError(f"Cypher directory not found: {directory}")
        statements: dict[str, Statement] = {}
        for path in sorted(directory.rglob("*.cypher")):
            name = path.relative_to(directory).with_suffix("").as_posix()
            statements[name] = _parse(name, path)
        return cls(statements)

    def get(self, name: str) -> Statement:
        try:
            return self._statements[name]
        except KeyError:
            raise CypherRegistryError(f"no Cypher statement named {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._statements

    def names(self, prefix: str = "") -> list[str]:
        return sorted(n for n in self._statements if n.startswith(prefix))

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._statements.values())

    def __len__(self) -> int:
        return len(self._statements)


def _parse(name: str, path: Path) -> Statement:
    lines = path.read_text(encoding="utf-8").splitlines()
    mode: str | None = None
    columns: tuple[str, ...] = ()
    body_start = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped.startswith("//") and stripped:
            body_start = index
            break
        match = _MODE_LINE.match(stripped)
        if match:
            mode = match.group(1)
        returns = _RETURNS_LINE.match(stripped)
        if returns:
            columns += tuple(c.strip() for c in returns.group(1).split(",") if c.strip())
    else:
        raise CypherRegistryError(f"{path}: no statement after the header")
    if mode not in _MODES:
        raise CypherRegistryError(f"{path}: header must declare '// mode: read|write|schema'")
    if columns and (mode != "read" or not all(_IDENTIFIER.fullmatch(c) for c in columns)):
        raise CypherRegistryError(f"{path}: '// returns:' takes a read's column names")
    text = "\n".join(lines[body_start:]).strip().removesuffix(";").rstrip()
    if ";" in _strip_strings(text):
        raise CypherRegistryError(f"{path}: one statement per file (found ';' inside)")
    return Statement(name=name, mode=mode, text=text, path=path, columns=columns)


def _strip_strings(text: str) -> str:
    """The text without string literals and comments, for structural checks."""
    text = re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", text)
    return re.sub(r"//[^\n]*", "", text)
