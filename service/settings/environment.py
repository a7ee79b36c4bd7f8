"""Settings from the environment: each field of a settings Struct is read from one variable.

A field's variable is its section's prefix plus the field name in capitals
(`ApiSettings.max_page_size` is `KGS_API_MAX_PAGE_SIZE`), unless the field names another one
with `env_name(...)` (older names kept). Unset and empty variables leave the default, so every
default is written once, on its field. Values are converted by msgspec; numbers must be 0 or
more, and more than 0 when the default is, unless the field declares its own bounds
(`ZERO_ALLOWED`, a `msgspec.Meta`) or is `SIGNED`. Booleans read on/off (true/false, 1/0).
A bad value is a SettingsError naming the variable and the value."""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec

from service.errors import KgsError

__all__ = [
    "AUTO_IS_ON",
    "SIGNED",
    "ZERO_ALLOWED",
    "SettingsError",
    "env_name",
    "field_variables",
    "project_root",
    "read_section",
]

S = TypeVar("S", bound=msgspec.Struct)

ZERO_ALLOWED = msgspec.Meta(ge=0)
SIGNED = msgspec.Meta(extra={"signed": True})  # any number, negative included
AUTO_IS_ON = msgspec.Meta(extra={"auto": True})  # a boolean that also reads "auto" as on
_TRUE = frozenset({"on", "true", "1"})
_FALSE = frozenset({"off", "false", "0"})
_AT_FIELD = re.compile(r" - at `\$\.(\w+)`")


class SettingsError(KgsError, ValueError):
    """An environment variable holds a value that cannot be used."""


def project_root() -> Path:
    """The checkout this package runs from (editable install), else the working directory."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / "pyproject.toml").is_file() else Path.cwd()


def env_name(name: str) -> msgspec.Meta:
    """The field's variable, when it is not its section's prefix plus the field name."""
    return msgspec.Meta(extra={"env": name})


class Field(msgspec.Struct, frozen=True):
    name: str
    variable: str
    kind: Any  # the type without Annotated and None
    bounded: bool  # declares its own numeric bounds
    signed: bool
    auto: bool
    default: Any
    bounds: str = ""  # the declared bounds in words, for the reference ("> 0", "any sign")


def field_variables(cls: type[msgspec.Struct], prefix: str) -> list[Field]:
    """Each field of `cls` with the variable it reads (nested Structs as they are)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = []
    for info in msgspec.structs.fields(cls):
        hint = hints[info.name]
        metas: list[msgspec.Meta] = []
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extras = typing.get_args(hint)
            metas = [m for m in extras if isinstance(m, msgspec.Meta)]
        extra: dict[str, Any] = {}
        for meta in metas:
            extra.update(meta.extra or {})
        kinds = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
        default = info.default if info.default is not msgspec.NODEFAULT else None
        if default is None and info.default_factory is not msgspec.NODEFAULT:
            default = info.default_factory()
        kind = kinds[0] if len(kinds) == 1 else hint
        signed = bool(extra.get("signed"))
        fields.append(Field(
            name=info.name,
            variable=extra.get("env", prefix + info.name.upper()),
            kind=kind,
            bounded=any(m.ge is not None or m.gt is not None for m in metas),
            signed=signed, auto=bool(extra.get("auto")), default=default,
            bounds=_bounds(metas, signed, kind, default),
        ))  # fmt: skip
    return fields


def _bounds(metas: list[msgspec.Meta], signed: bool, kind: Any, default: Any) -> str:
    if signed:
        return "any sign"
    said = [f"{op} {value}" for meta in metas
            for op, value in ((">=", meta.ge), (">", meta.gt), ("<=", meta.le), ("<", meta.lt))
            if value is not None]  # fmt: skip
    if said or kind not in (int, float):
        return ", ".join(said)
    return "> 0" if isinstance(default, int | float) and default > 0 else ">= 0"


def read_section(cls: type[S], env: Mapping[str, str], prefix: str, **given: Any) -> S:
    """`cls` with each field from its variable in `env` (defaults where unset), and `given`
    fields as passed (values that do not come from one variable, such as paths)."""
    raw: dict[str, Any] = {}
    variables: dict[str, Field] = {}
    for field in field_variables(cls, prefix):
        if field.name in given:
            continue
        if isinstance(field.kind, type) and issubclass(field.kind, msgspec.Struct):
            given = {**given, field.name: read_section(field.kind, env, field.variable + "_")}
            continue
        value = env.get(field.variable)
        if value is None or value == "":
            continue
        variables[field.name] = field
        raw[field.name] = _boolean(field, value) if field.kind is bool else value
    try:
        section = msgspec.convert({**raw, **given}, cls, strict=False, dec_hook=_paths)
    except msgspec.ValidationError as error:
        message = str(error)
        at = _AT_FIELD.search(message)
        failed = variables.get(at.group(1)) if at else None
        if failed is None:
            raise SettingsError(message) from None
        reason = _reason(failed, _AT_FIELD.sub("", message))
        raise SettingsError(f"{failed.variable} {reason}, got {raw[failed.name]!r}") from None
    for name, field in variables.items():
        _check_sign(field, getattr(section, name))
    return section


def _reason(field: Field, message: str) -> str:
    if typing.get_origin(field.kind) is Literal:
        return "must be one of " + ", ".join(str(a) for a in typing.get_args(field.kind))
    noun = {int: "an integer", float: "a number"}.get(field.kind)
    if noun is None:
        return f"is not valid ({message})"
    bound = re.search(r"`\w+` (>=|>|<=|<) (\S+)", message)
    return f"must be {noun}" + (f" {bound.group(1)} {bound.group(2)}" if bound else "")


def _boolean(field: Field, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in _TRUE or (field.auto and lowered == "auto"):
        return True
    if lowered in _FALSE:
        return False
    allowed = "auto, on or off" if field.auto else "on or off"
    raise SettingsError(f"{field.variable} must be {allowed}, got {value!r}")


def _check_sign(field: Field, value: Any) -> None:
    if field.bounded or field.signed or field.kind not in (int, float):
        return
    if isinstance(field.default, int | float) and field.default > 0 and value <= 0:
        raise SettingsError(f"{field.variable} must be positive, got {value}")
    if value < 0:
        raise SettingsError(f"{field.variable} must be 0 or more, got {value}")


def _paths(kind: type, value: Any) -> Any:
    if kind is Path and isinstance(value, str | Path):
        return Path(value)
    raise NotImplementedError
