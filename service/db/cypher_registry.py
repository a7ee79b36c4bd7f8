"""Named Cypher statements, one per file under cypher/, loaded by name.

A statement's name is its path below cypher/ without the suffix (`schema/paragraph_vector`,
`admin/ping`). Each file has a header of `//` comment lines; one of them declares the mode:

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
setting its `$parameters` with `:param`. A file may set them itself, in Browser's own syntax, on
lines of their own ahead of the statement (before, among or after the header comments):

    :param scope => 'waterglass';
    :param path => 'waterglass/waterglass.md';

Such a file pastes into Browser as it is: the multi-statement editor runs each `:param` command,
then the statement. The loader keeps each name with its value expression
(`Statement.browser_params`) and strips the lines from the statement it runs; the lines must set
exactly the statement's `$parameters`. `Statement.browser_text` puts them back in front of the
statement, for a Browser guide.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec

from service.errors import KgsError

__all__ = [
    "VECTOR_PROPERTY",
    "VECTOR_PROPERTY_TOKEN",
    "CypherRegistry",
    "CypherRegistryError",
    "Statement",
    "with_vector_property",
]

# The paragraph property of an embedding model's vectors (service/embedding_space.py names them):
# the only identifier besides a scope label ever put into a statement's text.
VECTOR_PROPERTY_TOKEN = "VectorProperty"
VECTOR_PROPERTY = re.compile(r"embedding(_m[0-9a-f]{8})?")

Mode = Literal["read", "write", "schema"]
_MODES: tuple[Mode, ...] = ("read", "write", "schema")
_MODE_LINE = re.compile(r"^//\s*mode:\s*(\w+)\s*$")
_RETURNS_LINE = re.compile(r"^//\s*returns:\s*(.*)$")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Neo4j Browser's `:param name => expression`, optionally ended by `;` (its multi-statement editor
# needs the `;` to run the next line as a statement of its own).
_BROWSER_PARAM_LINE = re.compile(r"^:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.*?)\s*;?\s*$")


class CypherRegistryError(KgsError, LookupError):
    """A statement file is malformed, or a name is not in the registry."""


class Statement(msgspec.Struct, frozen=True):
    name: str
    mode: Mode
    text: str  # the statement without its header comments and `:param` lines
    path: Path
    columns: tuple[str, ...] = ()  # declared by `// returns:`; its rows then travel packed
    # `:param name => expression;` lines of the file, in order: (name, expression).
    browser_params: tuple[tuple[str, str], ...] = ()

    @property
    def packed_text(self) -> str:
        """The statement as it runs when its columns are declared: every row in one record."""
        fields = ", ".join(f"{c}: {c}" for c in self.columns)
        return f"CALL () {{\n{self.text}\n}}\nRETURN collect({{{fields}}}) AS rows"

    @property
    def browser_text(self) -> str:
        """The statement as Neo4j Browser takes it: its `:param` lines, then the statement."""
        lines = [f":param {name} => {value};" for name, value in self.browser_params]
        return "\n".join([*lines, self.text])

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
    browser_params: dict[str, str] = {}
    body_start = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(":"):
            param = _BROWSER_PARAM_LINE.match(stripped)
            if param is None or not param.group(2):
                raise CypherRegistryError(
                    f"{path}:{index + 1}: a header line starting with ':' must read "
                    '":param NAME => VALUE;"'
                )
            if param.group(1) in browser_params:
                raise CypherRegistryError(f"{path}:{index + 1}: ${param.group(1)} is set twice")
            browser_params[param.group(1)] = param.group(2)
            continue
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
    statement = Statement(
        name=name, mode=mode, text=text, path=path, columns=columns,
        browser_params=tuple(browser_params.items()),
    )  # fmt: skip
    if browser_params and set(browser_params) != set(statement.parameters):
        raise CypherRegistryError(
            f"{path}: the ':param' lines set {sorted(browser_params)}, "
            f"the statement uses {sorted(statement.parameters)}"
        )
    return statement


def _strip_strings(text: str) -> str:
    """The text without string literals and comments, for structural checks."""
    text = re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", text)
    return re.sub(r"//[^\n]*", "", text)


def with_vector_property(stmt: Statement, params: Mapping[str, Any]) -> Statement:
    """The statement with its token VectorProperty replaced by `params["property"]`, which must
    be a model's vector property. A statement that reads vectors names their property in its
    text: read through `p[$property]`, the exact cosine scan took 1.6 times as long
    (bench/studies/vector_read_ab.py, docs/benchmarks.md). Statements without the token are returned
    as they are."""
    if VECTOR_PROPERTY_TOKEN not in stmt.text:
        return stmt
    prop = params.get("property")
    if not isinstance(prop, str) or not VECTOR_PROPERTY.fullmatch(prop):
        raise ValueError(f"{stmt.name}: refused property {prop!r}")
    return msgspec.structs.replace(stmt, text=stmt.text.replace(VECTOR_PROPERTY_TOKEN, prop))
