"""The shapes of attribute facts: the subject head words that name a fact class and the value
pattern of each class."""

from __future__ import annotations

import re

from service.text.analysis import (
    FactKind,
)
from service.text.facts.qualifiers import _ENVIRONMENTS
from service.text.tokens import split_words

# --- attribute facts -------------------------------------------------------------------------

# Attribute head words (the subject's last one or two words) and the fact class they name.
# Two-word heads are tried first: "response status code" is a status code, not a state.
_HEADS_2: dict[str, FactKind] = {
    "status code": "status_code", "response code": "status_code", "http status": "status_code",
    "return code": "status_code", "exit code": "status_code", "content type": "format",
    "mime type": "format", "media type": "format", "file type": "format",
    "release date": "date", "base url": "endpoint",
}  # fmt: skip
_HEADS: dict[str, FactKind] = {
    **dict.fromkeys(
        split_words(
            "tolerance diameter length width height depth thickness force pressure temperature "
            "weight mass voltage torque distance clearance gap radius speed latency timeout "
            "duration interval frequency resolution accuracy"
        ),
        "measurement",
    ),
    **dict.fromkeys(split_words("date deadline"), "date"),
    **dict.fromkeys(split_words("status state mode"), "state"),
    **dict.fromkeys(
        split_words(
            "location site region zone room rack slot bay building floor datacenter cabinet "
            "shelf placement"
        ),
        "location",
    ),
    **dict.fromkeys(
        split_words(
            "count limit threshold budget quota capacity size window attempts retries maximum "
            "minimum replicas concurrency"
        ),
        "quantity",
    ),
    **dict.fromkeys(split_words("owner maintainer steward custodian approver assignee"), "owner"),
    **dict.fromkeys(split_words("endpoint url uri route"), "endpoint"),
    **dict.fromkeys(
        split_words(
            "dependency package provider driver runtime library module plugin adapter backend "
            "database engine framework"
        ),
        "dependency",
    ),
    **dict.fromkeys(split_words("format schema encoding serialization serialisation"), "format"),
    **dict.fromkeys(split_words("protocol"), "protocol"),
    **dict.fromkeys(split_words("version revision"), "version"),
    **dict.fromkeys(split_words("port"), "port"),
}

_COPULA = re.compile(
    r"\s+(?P<verb>is|are|was|were|remains|remain|has been|have been|will be|stays)\s+"
    r"(?P<adverb>(?:currently|now|still|presently|today|also|set to|always)\s+)*",
    re.IGNORECASE,
)
_LOCATED = re.compile(
    r"\s+(?:is|are|was|were)\s+(?:currently\s+|now\s+|still\s+)?"
    r"(?:located|installed|mounted|hosted|housed|placed|kept|stored|deployed|sited)\s+"
    r"(?:in|at|on|inside)\s+(?:the\s+)?",
    re.IGNORECASE,
)
_OWNED = re.compile(
    r"\s+(?:is|are|was|were)\s+(?:currently\s+|now\s+|still\s+)?"
    r"(?:owned|maintained|operated|run|managed)\s+by\s+(?:the\s+)?",
    re.IGNORECASE,
)
_SUBJECT_WORD = re.compile(r"[A-Za-z][\w\-/]*$")
# Words that end a subject when read backwards from the verb: clauses, not noun phrases.
_SUBJECT_STOPS = frozenset(
    split_words(
        "that which who whom whose when while if because and or but so then where whether "
        "although though since unless until after before once as than is are was were be been"
    )
)
_QUANTIFIERS = frozenset(
    split_words("no one some any many most all several few both either neither")
)
_DETERMINERS = frozenset(split_words("the a an its their our this that these those each every"))
_QUALIFIER_WORDS = frozenset(
    split_words(
        "current currently historical historically previous previously former formerly original "
        "originally planned scheduled future upcoming proposed new old legacy next"
    )
    + tuple(_ENVIRONMENTS)
)
_UNITS = (
    r"mm|cm|km|µm|um|nm|m|inch(?:es)?|ft|feet|mi|miles?|N|kN|Nm|N·m|Pa|kPa|MPa|GPa|bar|mbar|"
    r"psi|°C|°F|℃|K|V|mV|kV|A|mA|W|kW|MW|Wh|kWh|Hz|kHz|MHz|GHz|ms|µs|us|ns|s|sec|secs|"
    r"seconds?|minutes?|min|mins|hours?|h|hrs?|days?|weeks?|months?|years?|kg|g|mg|t|lb|lbs|"
    r"oz|%|percent|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|bps|kbps|Mbps|Gbps|rpm|dB|L|ml|mL|l"
)
_NUMBER = r"[-−]?\d[\d,]*(?:\.\d+)?"
_TOLERANCE = r"(?:±|\+/-|\+-|\+/−)\s*"
_MEASUREMENT = re.compile(
    rf"(?P<v>(?:{_TOLERANCE})?{_NUMBER}(?:\s*(?:-|–|to)\s*{_NUMBER})?\s*(?:{_UNITS}))(?![\w])"
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE = re.compile(
    rf"(?P<v>\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/\d{{4}}|"
    rf"(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}|"
    rf"(?:{_MONTHS})\.?\s+\d{{4}}|(?:Q[1-4]\s+)?\d{{4}})(?![\w-])",
    re.IGNORECASE,
)
_STATES = {
    "enabled": "enabled", "on": "enabled", "active": "enabled", "activated": "enabled",
    "turned on": "enabled", "switched on": "enabled", "disabled": "disabled", "off": "disabled",
    "inactive": "disabled", "deactivated": "disabled", "turned off": "disabled",
    "switched off": "disabled", "online": "online", "offline": "offline",
    "available": "available", "unavailable": "unavailable", "supported": "supported",
    "unsupported": "unsupported", "required": "required", "optional": "optional",
    "open": "open", "closed": "closed", "locked": "locked", "unlocked": "unlocked",
    "running": "running", "stopped": "stopped", "paused": "paused", "suspended": "suspended",
    "approved": "approved", "rejected": "rejected", "pending": "pending", "blocked": "blocked",
    "allowed": "allowed", "mandatory": "required", "read-only": "read-only",
    "read-write": "read-write", "healthy": "healthy", "unhealthy": "unhealthy",
    "degraded": "degraded",
}  # fmt: skip
_STATE = re.compile(
    r"(?P<v>" + "|".join(sorted(map(re.escape, _STATES), key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)
_QUANTITY = re.compile(rf"(?P<v>{_NUMBER})(?![\w.]*\d)(?![\w])")
_NAME = re.compile(
    r"(?P<v>(?:[A-Z0-9][\w&.'’\-]*|[a-z][\w\-]*\d[\w\-]*)"
    r"(?:\s+(?:of\s+|for\s+|and\s+|&\s+)?(?:[A-Z0-9][\w&.'’\-]*)){0,4})"
)
_EMAIL_OR_HANDLE = re.compile(r"(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+|@[\w-]+)")
_ENDPOINT = re.compile(r"(?P<v>(?:[a-z][a-z0-9+.-]*://[^\s\"'<>`]+|/[\w\-./{}:%~]+))")
_IDENTIFIER = re.compile(r"(?P<v>[A-Za-z][\w.+#\-/]*(?:\s+[A-Z0-9][\w.+#\-/]*){0,2})")
_PROTOCOL = re.compile(r"(?P<v>[A-Za-z][\w.+\-]*(?:/\d(?:\.\d)?)?)")
_SEMVER = re.compile(r"(?P<v>v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?|v\d+)(?![\w.]*\w)")
_PORT = re.compile(r"(?P<v>\d{1,5})(?![\w.,]*\d)")
_STATUS_CODE = re.compile(r"(?P<v>[1-5]\d\d)(?![\w.,]*\d)")
# Values these classes never take: pronouns and articles after the copula are prose.
_NOT_VALUES = frozenset(
    split_words(
        "the a an it this that these those there here not never no none one also used being "
        "based known called given set"
    )
)

_VALUE_PATTERNS: dict[FactKind, tuple[re.Pattern[str], ...]] = {
    "measurement": (_MEASUREMENT,),
    "date": (_DATE,),
    "state": (_STATE,),
    "location": (_NAME,),
    "quantity": (_QUANTITY,),
    "owner": (_EMAIL_OR_HANDLE, _NAME),
    "endpoint": (_ENDPOINT,),
    "dependency": (_IDENTIFIER,),
    "format": (_IDENTIFIER,),
    "protocol": (_PROTOCOL,),
    "version": (_SEMVER,),
    "port": (_PORT,),
    "status_code": (_STATUS_CODE,),
}
