"""plan_query: intent, depth, compare operands, key terms and budget profile of a question.

Pure and deterministic: English and Chinese phrasing, no model. Alias resolution against the
graph happens later (graph_context), on the names this plan extracts.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from service.pipeline.budgets import BUDGETS, Budget, BudgetProfile

__all__ = ["Depth", "Intent", "QueryPlan", "key_terms", "plan_query"]

Intent = Literal["definition", "how_to", "compare", "causal", "generic"]
Depth = Literal["normal", "deep"]

_COMPARE = re.compile(
    r"\b(compare|comparison|vs\.?|versus|difference|differences|differ|differs|contrast|"
    r"similarit(?:y|ies)|better than|worse than)\b|区别|比较|对比|相比|不同|差异",
    re.IGNORECASE,
)
_CAUSAL = re.compile(
    r"\b(why|cause|causes|caused|reason|reasons|because|mechanism|what happens (?:if|when)|"
    r"leads? to|result(?:s)? in|effect of|consequence)\b|为什么|为何|原因|导致|机制|后果",
    re.IGNORECASE,
)
_HOW_TO = re.compile(
    r"\b(how (?:to|do i|do you|can i|should i|would i)|steps?|procedure|install|configure|"
    r"set ?up|instructions?)\b|如何|怎么|怎样|步骤|操作",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^\s*(what (?:is|are|was|were)|define|definition of|meaning of|who (?:is|was))\b|"
    r"是什么|什么是|定义|含义",
    re.IGNORECASE,
)
_DEEP = re.compile(
    r"\b(deep(?:ly)?|in depth|in detail|detailed|explain|analy[sz]e|analysis|thorough(?:ly)?)\b|"
    r"详细|深入|分析|解释",
    re.IGNORECASE,
)
_OPERAND_PATTERNS = (
    re.compile(r"\bcompare\s+(?P<a>.+?)\s+(?:and|with|to|against|vs\.?|versus)\s+(?P<b>.+)", re.I),
    re.compile(r"\bdifferences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)", re.I),
    re.compile(
        r"\bhow\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+differ(?:ent)?\s+from\s+(?P<b>.+)", re.I
    ),
    re.compile(r"(?P<a>.+?)\s+(?:vs\.?|versus|compared (?:to|with)|or)\s+(?P<b>.+)", re.I),
    re.compile(
        r"(?:比较|对比)?(?P<a>.+?)(?:和|与|跟|同)(?P<b>.+?)(?:的)?(?:区别|不同|差异|比较|对比|相比)"
    ),
)
_LEADING = re.compile(
    r"^(?:what(?:'s| is| are)?|which|the|a|an|between|is|are|of)\s+", re.IGNORECASE
)
_TRAILING = re.compile(
    r"\s+(?:materials?|in detail|in depth|please|for me|better|now)$|[?？!！。.,，\s]+$",
    re.IGNORECASE,
)
_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be between by can compare difference do does for from how i in is it "
        "its of on or the their there these this to vs versus was what when where which who why "
        "with you your explain deep detail please tell me about",
    )
)
# Latin words (with inner - . /) and CJK runs are separate tokens: "什么是waterglass" has two.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-./]*|[^\W\dA-Za-z_]+", re.UNICODE)


class QueryPlan(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    scope: str
    intent: Intent
    depth: Depth
    operands: tuple[str, ...]  # compare operands as written, in order
    terms: tuple[str, ...]  # key terms for coverage checks
    budget: Budget
    reasons: tuple[str, ...]  # which cue decided intent and depth


def plan_query(query: str, scope: str, depth: Depth | None = None) -> QueryPlan:
    text = " ".join(query.split())
    reasons: list[str] = []
    operands = _operands(text)
    if _COMPARE.search(text) or (operands and re.search(r"\b(vs\.?|versus)\b", text, re.I)):
        intent: Intent = "compare"
        reasons.append("intent=compare: comparison cue")
    elif _CAUSAL.search(text):
        intent = "causal"
        reasons.append("intent=causal: cause/why cue")
    elif _HOW_TO.search(text):
        intent = "how_to"
        reasons.append("intent=how_to: procedure cue")
    elif _DEFINITION.search(text):
        intent = "definition"
        reasons.append("intent=definition: what-is cue")
    else:
        intent = "generic"
        reasons.append("intent=generic: no specific cue")
    if intent != "compare":
        operands = ()
    if depth is None:
        depth = "deep" if _DEEP.search(text) else "normal"
        reasons.append(f"depth={depth}: {'explicit depth cue' if depth == 'deep' else 'default'}")
    else:
        reasons.append(f"depth={depth}: requested")
    profile: BudgetProfile = (
        "deep" if depth == "deep" else "causal" if intent == "causal" else "base"
    )
    return QueryPlan(
        query=text,
        scope=scope,
        intent=intent,
        depth=depth,
        operands=operands,
        terms=key_terms(text),
        budget=BUDGETS[profile],
        reasons=tuple(reasons),
    )


def key_terms(text: str) -> tuple[str, ...]:
    """Content words (lower-case) and CJK runs, in order, without duplicates."""
    terms: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        token = token.strip("-./")
        if token and token not in _STOPWORDS and (len(token) > 1 or not token.isascii()):
            terms.append(token)
    return tuple(dict.fromkeys(terms))


def _operands(text: str) -> tuple[str, ...]:
    for pattern in _OPERAND_PATTERNS:
        match = pattern.search(text)
        if match:
            a, b = _clean(match.group("a")), _clean(match.group("b"))
            if a and b and a.lower() != b.lower():
                return (a, b)
    return ()


def _clean(operand: str) -> str:
    previous = None
    operand = operand.strip()
    while previous != operand:
        previous = operand
        operand = _TRAILING.sub("", _LEADING.sub("", operand)).strip()
    return operand
