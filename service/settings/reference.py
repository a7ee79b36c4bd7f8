"""Every variable kgs reads, from the settings Structs themselves: name, type, default, bounds and
meaning. docs/configuration.md is this module's output (`python -m service.settings.reference`),
checked against it by a test; `unknown_variables` names the `KGS_*` variables of an environment
that no setting reads, with the nearest known name, so a typo does not silently do nothing.

A field's meaning is its comment in the Struct's source: the comment on its own lines, else the
comment block above it, which also serves the fields after it whose names start with the same
word (a group such as answerability_*_weight); the first sentence only.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import io
import re
import sys
import textwrap
import tokenize
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from service.settings.environment import field_variables

__all__ = ["EXTRA_VARIABLES", "Variable", "render", "unknown_variables", "variables"]

_KGS = "KGS_"
_NEAREST_CUTOFF = 0.75  # difflib ratio of the nearest known name offered for an unknown one
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]`'\"])[.;] (?=[A-Z(`])")


class Variable(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    section: str  # the Settings attribute, e.g. "answer"
    field: str  # dotted field path inside the section, "" for variables read outside a Struct
    type: str
    default: str
    bounds: str
    meaning: str
    renamed: bool = False  # outside the naming rule (prefix plus field name)


# Variables read outside the settings Structs (paths and key lists resolved as they are read).
EXTRA_VARIABLES: tuple[Variable, ...] = (
    Variable(name="KGS_HOME", section="", field="", type="path", default="`.kgs` in the checkout",
             bounds="", meaning="Where kgs keeps its local state: the local Neo4j server, its "
             "password, caches."),
    Variable(name="KGS_CYPHER_DIR", section="", field="", type="path",
             default="`cypher` in the checkout", bounds="",
             meaning="The folder of named Cypher statements."),
    Variable(name="KGS_API_KEYS", section="api", field="", type="JSON array", default="unset",
             bounds="", meaning="API keys: name, SHA-256 of the key, readable scopes and write "
             "right of each (docs/api.md)."),
    Variable(name="KGS_API_KEYS_FILE", section="api", field="", type="path", default="unset",
             bounds="", meaning="A file holding the same JSON array as KGS_API_KEYS."),
    Variable(name="KGS_API_KEY", section="client", field="", type="str", default="unset",
             bounds="", meaning="Client side only: the key `kgs eval --url` sends when `--key` "
             "is not given."),
)  # fmt: skip


def variables() -> tuple[Variable, ...]:
    """Every variable of every settings section, then EXTRA_VARIABLES."""
    from service.settings import SECTIONS, Settings

    found = _section_variables(Settings, "KGS_", "")
    for attribute, cls, prefix in SECTIONS:
        found += _section_variables(cls, prefix, attribute)
    return (*found, *EXTRA_VARIABLES)


def _section_variables(cls: type[msgspec.Struct], prefix: str, section: str) -> list[Variable]:
    from service.settings import GIVEN_FIELDS

    found = []
    meanings = _meanings(cls)
    for field in field_variables(cls, prefix):
        if field.name in GIVEN_FIELDS:
            continue
        if isinstance(field.kind, type) and issubclass(field.kind, msgspec.Struct):
            if section:  # a Struct inside a section (conflicts.facts); Settings' are SECTIONS
                nested = _section_variables(field.kind, field.variable + "_", section)
                found += [msgspec.structs.replace(v, field=f"{field.name}.{v.field}")
                          for v in nested]  # fmt: skip
            continue
        found.append(Variable(
            name=field.variable, section=section, field=field.name,
            type=_type_name(field.kind), default=_default(field.default), bounds=field.bounds,
            meaning=meanings.get(field.name, ""),
            renamed=field.variable != prefix + field.name.upper(),
        ))  # fmt: skip
    return found


def unknown_variables(env: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """(name, nearest known name or None) for each `KGS_*` variable no setting reads."""
    known = _known_names()
    return [
        (name, next(iter(difflib.get_close_matches(name, known, 1, _NEAREST_CUTOFF)), None))
        for name in sorted(env)
        if name.startswith(_KGS) and name not in known
    ]


@functools.cache
def _known_names() -> tuple[str, ...]:
    return tuple(v.name for v in variables())


# --- meanings from the source ------------------------------------------------------------------


def _meanings(cls: type) -> dict[str, str]:
    """Field name -> the first sentence of its comment (its own lines, else the block above)."""
    source = textwrap.dedent(inspect.getsource(cls))
    comments: dict[int, str] = {}  # line -> comment text
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not token.string.startswith("# fmt:"):
            comments[token.start[0]] = token.string.lstrip("#").strip()
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    meanings: dict[str, str] = {}
    group, stem = "", ""  # the last comment block above a field, and that field's first word
    previous_end = body.lineno
    for statement in body.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            previous_end = statement.end_lineno or statement.lineno
            continue
        end = statement.end_lineno or statement.lineno
        own = [comments[n] for n in range(statement.lineno, end + 1) if n in comments]
        above = [comments[n] for n in range(previous_end + 1, statement.lineno) if n in comments]
        name = statement.target.id
        if above:
            group, stem = " ".join(above), name.split("_")[0]
        # A block above a field also introduces the fields after it of the same family
        # (answerability_*_weight), not the next unrelated one.
        text = " ".join(own) or (group if name.split("_")[0] == stem else "")
        meanings[name] = _first_sentence(text)
        previous_end = end
    return meanings


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = _SENTENCE_END.search(text)
    sentence = text[: match.start() + 1] if match else text
    return sentence[:1].upper() + sentence[1:] if sentence else ""


def _type_name(kind: Any) -> str:
    if typing.get_origin(kind) is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in typing.get_args(kind))
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(kind) if a is not type(None))
    if isinstance(kind, type):
        return {bool: "on/off", Path: "path"}.get(kind, kind.__name__)
    return str(kind).replace("typing.", "")


def _default(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple | list | frozenset):
        return ", ".join(str(v) for v in value) or "(none)"
    return str(value)


# --- the page ----------------------------------------------------------------------------------


def render(found: Sequence[Variable] | None = None) -> str:
    found = variables() if found is None else found
    lines = [
        "# Configuration reference",
        "",
        "Generated from the settings Structs in `service/settings/` by",
        "`.venv/bin/python -m service.settings.reference > docs/configuration.md`; a test fails",
        "when this page is stale or a setting has no comment. Every variable is optional. How a",
        "field finds its variable, and the variables people change most, are in",
        "[operations.md](operations.md#configuration). `kgs` warns at start about every `KGS_*`",
        "variable it does not know, with the nearest known name.",
        "",
        "Numbers must be 0 or more, and more than 0 where the default is, unless the bounds column",
        "says otherwise. Booleans read `on`/`off` (also `true`/`false`, `1`/`0`).",
    ]
    sections: dict[str, list[Variable]] = {}
    for variable in found:
        sections.setdefault(variable.section or "general", []).append(variable)
    for section, rows in sections.items():
        lines += ["", f"## {section}", "", "| variable | type | default | bounds | meaning |",
                  "|---|---|---|---|---|"]  # fmt: skip
        lines += [
            f"| `{v.name}` | {v.type} | {_cell(v.default)} | {v.bounds} | {_cell(v.meaning)} |"
            for v in rows
        ]
    renamed = [v for v in found if v.renamed]
    lines += ["", "## Names outside the rule", "",
              "These fields keep older names instead of their section's prefix plus the field "
              "name:", ""]  # fmt: skip
    lines += [f"- `{v.name}` ({v.section}.{v.field})" for v in renamed]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


if __name__ == "__main__":
    sys.stdout.write(render())
