"""Outputs an injection demands be written into an answer (links, phrases, contact details)."""

from __future__ import annotations

import re

from service.answer.injection.model import normalize
from service.answer.injection.rules import _I

__all__ = ["demanded_outputs"]

# --- demanded outputs -------------------------------------------------------------------------

# A URL ends at whitespace, quotes, brackets, a comma or CJK text (NFKC turns "，" into ",").
_URL_CHARS = r"[^\s<>\"'`)\],;\u3000-\u9fff\uff00-\uffef]+"
_URL = re.compile(rf"(?:https?|ftp)://{_URL_CHARS}|\bwww\.{_URL_CHARS}", _I)
_EMAIL = re.compile(r"[\w.+-]+@([\w-]+(?:\.[\w-]+)+)")
_TLDS = "com|net|org|io|info|biz|xyz|top|site|online|app|dev|ru|cn|co|me|example|test|invalid"
_DOMAIN = re.compile(
    rf"(?<![\w@/.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_TLDS})\b(?:/[^\s)\]\"']*)?", _I
)
_QUOTED = re.compile(
    r"\"([^\"\n]{2,160})\"|“([^”\n]{2,160})”|「([^」\n]{1,160})」|『([^』\n]{1,160})』|"
    r"‘([^’\n]{2,160})’|«([^»\n]{2,160})»|(?<![\w])'([^'\n]{2,160})'(?![\w])"
)
_CAPS = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)*(?![A-Za-z0-9_])")
_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+(?![\w])")
_NAMED = re.compile(
    r"\bthe (?:single |exact )?(?:word|text|tag|marker|phrase|token|string|codeword|code word|"
    r"password|keyword)\s+([A-Za-z0-9][\w-]*)",
    _I,
)
# Shouting and vocabulary of the instruction itself, not something it asks to be output.
_CAPS_STOP = frozenset(
    (
        "ABOVE",
        "ADMIN",
        "ADMINISTRATOR",
        "AI",
        "ALERT",
        "ALL",
        "AND",
        "ANSWER",
        "API",
        "APIS",
        "ASCII",
        "ASSISTANT",
        "ATTENTION",
        "BEGIN",
        "CAPITAL",
        "CAPITALS",
        "CAPS",
        "CONTEXT",
        "CRITICAL",
        "CSV",
        "DOCUMENT",
        "END",
        "FINAL",
        "FOR",
        "FROM",
        "GET",
        "GPT",
        "HIGHEST",
        "HTML",
        "HTTP",
        "HTTPS",
        "IGNORE",
        "IMPORTANT",
        "INST",
        "INSTRUCTION",
        "INSTRUCTIONS",
        "JSON",
        "LETTERS",
        "LLM",
        "LLMS",
        "LOWERCASE",
        "MARKDOWN",
        "ME",
        "MESSAGE",
        "MODE",
        "MODEL",
        "MODELS",
        "MUST",
        "NEVER",
        "NEW",
        "NOT",
        "NOTE",
        "NOTICE",
        "NOW",
        "ONLY",
        "OUTPUT",
        "OVERRIDE",
        "PLEASE",
        "POLICY",
        "POST",
        "PREVIOUS",
        "PRIORITY",
        "PROMPT",
        "READ",
        "REPLY",
        "RESPONSE",
        "RULES",
        "SECURITY",
        "START",
        "STOP",
        "SYS",
        "SYSTEM",
        "TASK",
        "THAT",
        "THE",
        "THIS",
        "UNICODE",
        "UPDATE",
        "UPPERCASE",
        "URGENT",
        "URL",
        "URLS",
        "USER",
        "USERS",
        "UTF",
        "WARNING",
        "WITH",
        "XML",
        "YAML",
        "YOU",
        "YOUR",
    )
)
_MIN_OUTPUT = 2


def demanded_outputs(sentence: str) -> tuple[str, ...]:
    """What an instruction sentence asks to be output, normalised (see _norm_output): URLs and
    their hosts, e-mail domains, quoted strings, capitalised tokens and identifiers."""
    text = normalize(sentence)
    found: list[str] = []
    for match in _URL.finditer(text):
        url = match.group(0).rstrip(".,;:!?'\"")
        found.append(url)
        host = re.sub(r"^(?:https?|ftp)://", "", url, flags=_I).split("/", 1)[0].split("?", 1)[0]
        found.append(host)
    found.extend(m.group(1) for m in _EMAIL.finditer(text))
    found.extend(m.group(0).rstrip(".,;:!?") for m in _DOMAIN.finditer(text))
    for match in _QUOTED.finditer(text):
        found.append(next(g for g in match.groups() if g is not None).strip())
    for match in _CAPS.finditer(text):
        token = match.group(0)
        parts = re.split(r"[-_]", token)
        if (len(token) >= 4 or any(c.isdigit() for c in token)) and not all(
            p in _CAPS_STOP or not p for p in parts
        ):
            found.append(token)
    found.extend(m.group(0) for m in _IDENTIFIER.finditer(text))
    found.extend(m.group(1) for m in _NAMED.finditer(text))
    out: list[str] = []
    for item in found:
        norm = _norm_output(item)
        if len(norm) >= _MIN_OUTPUT and norm not in out and norm.upper() not in _CAPS_STOP:
            out.append(norm)
    return tuple(out)


def _norm_output(text: str) -> str:
    return " ".join(normalize(text).casefold().split()).strip(" .,;:!?")


def _plain_word(output: str) -> bool:
    """A single word ("honey", "lock"): demanded only when the rest of the evidence never uses it
    as an ordinary word, or every answer mentioning a canal lock would be dropped."""
    return bool(re.fullmatch(r"[a-z]+", output))
