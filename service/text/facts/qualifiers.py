"""Qualifiers: the condition scope (temporal, environment, version, platform) a sentence puts its
facts in."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.text.analysis import (
    Scope,
)

__all__ = ["qualifiers"]

# --- qualifiers ------------------------------------------------------------------------------

_ENVIRONMENTS = {
    "staging": "staging", "stage": "staging", "production": "production", "prod": "production",
    "development": "development", "dev": "development", "qa": "qa", "uat": "uat",
    "sandbox": "sandbox", "preview": "preview", "canary": "canary",
}  # fmt: skip
_ENV_WORD = "|".join(sorted(_ENVIRONMENTS, key=len, reverse=True))
_ENV_NOUN = r"(?:environment|env|deployment|cluster|tier|stage|instance|server|system)s?"
# Environment words count only in environment/deployment phrasing ("in the staging environment",
# "staging deployment", "in production"): "went into production" stays prose.
_ENVIRONMENT = re.compile(
    rf"\b(?:in|on|for|within|under)\s+(?:the\s+|a\s+|our\s+)?(?P<a>{_ENV_WORD})\b(?!-)"
    rf"|\b(?P<b>{_ENV_WORD})\s+{_ENV_NOUN}\b",
    re.IGNORECASE,
)
_GOES_INTO = re.compile(r"\b(?:into|went|go|goes|going|entered|began|started)\s+production\b", re.I)
_PLATFORMS = {
    "windows": "windows", "macos": "macos", "mac os": "macos", "os x": "macos",
    "linux": "linux", "android": "android", "ios": "ios", "web": "web", "desktop": "desktop",
    "mobile": "mobile",
}  # fmt: skip
_PLATFORM_WORD = r"Windows|macOS|Mac\s?OS|OS X|Linux|Android|iOS|[Ww]eb|[Dd]esktop|[Mm]obile"
_PLATFORM_NOUN = r"(?:platform|devices?|clients?|apps?|application|builds?|targets?|hosts?)"
# "Windows" only capitalised ("time windows" is not a platform); web/desktop/mobile only with a
# platform noun or "on the web"-style phrasing.
_PLATFORM = re.compile(
    rf"\b(?i:on|for|under)\s+(?i:the\s+)?(?P<a>Windows|macOS|Mac\s?OS|OS X|Linux|Android|iOS)\b"
    rf"|\b(?i:on|for)\s+(?i:the\s+)?(?P<c>[Ww]eb|[Dd]esktop|[Mm]obile)\b"
    rf"|\b(?P<b>{_PLATFORM_WORD})\s+{_PLATFORM_NOUN}\b"
)
# "version 2.0" / "v2" as a condition; never a path segment (/api/v1/hooks) or a dotted name.
_VERSION = re.compile(
    r"\b(?:version|release|rel\.)\s+v?(?P<a>\d+(?:\.\d+){0,3})\b"
    r"|(?<![\w/.\-])v(?P<b>\d+(?:\.\d+){0,3})(?![\w/\-])",
    re.IGNORECASE,
)
_HISTORICAL = re.compile(
    r"\b(?:historic(?:al)?(?:ly)?|previous(?:ly)?|former(?:ly)?|earlier|originally|"
    r"in the past|used to|prior to|no longer|legacy|old|deprecated)\b",
    re.IGNORECASE,
)
_PLANNED = re.compile(
    r"\b(?:planned|scheduled|future|upcoming|proposed|will be|is to be|next|intended|"
    r"anticipated|targeted)\b",
    re.IGNORECASE,
)


def qualifiers(text: str, *, skip: Sequence[tuple[int, int]] = ()) -> Scope:
    """The condition scope a sentence states, ignoring the character ranges in `skip` (the
    fact's own value: "The runtime version is 1.2.0" is a value, not a version scope)."""

    def free(match: re.Match[str]) -> bool:
        return not any(match.start() < hi and lo < match.end() for lo, hi in skip)

    found: set[tuple[str, str]] = set()
    if any(free(m) for m in _HISTORICAL.finditer(text)):
        found.add(("temporal", "historical"))
    if any(free(m) for m in _PLANNED.finditer(text)):
        found.add(("temporal", "planned"))
    for m in _ENVIRONMENT.finditer(text):
        word = (m.group("a") or m.group("b") or "").lower()
        if free(m) and not (word == "production" and _GOES_INTO.search(text)):
            found.add(("environment", _ENVIRONMENTS[word]))
    for m in _PLATFORM.finditer(text):
        word = " ".join((m.group("a") or m.group("b") or m.group("c") or "").lower().split())
        if free(m):
            found.add(("platform", _PLATFORMS.get(word, word)))
    for m in _VERSION.finditer(text):
        if free(m):
            found.add(("version", _version_norm(m.group("a") or m.group("b") or "")))
    return tuple(sorted(found))


def _version_norm(text: str) -> str:
    parts = text.lower().lstrip("v").split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()  # version 2 == version 2.0 == v2.0.0
    return ".".join(parts)
