"""plan_query: intent, depth, compare operands, key terms and budget profile of a question.

Pure and deterministic: English and Chinese phrasing, no model. Alias resolution against the
graph happens later (graph_context), on the names this plan extracts.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from service.pipeline.budgets import BUDGETS, Budget, BudgetProfile
from service.text.answer_types import AnswerType, expected_type

__all__ = ["Depth", "Intent", "QueryPlan", "asks_for_steps", "key_terms", "plan_query"]

Intent = Literal["definition", "how_to", "compare", "causal", "generic"]
Depth = Literal["normal", "deep"]

_COMPARE = re.compile(
    r"\b(compare|compared|comparison|vs\.?|versus|difference|differences|differ|differs|contrast|"
    r"similarit(?:y|ies)|better than|worse than)\b|区别|比较|对比|相比|不同|差异",
    re.IGNORECASE,
)
_CAUSAL = re.compile(
    r"\b(why|cause|causes|caused|reason|reasons|because|mechanism|what happens (?:if|when)|"
    r"leads? to|result(?:s)? in|effect of|consequence)\b|为什么|为何|原因|导致|机制|后果",
    re.IGNORECASE,
)
_HOW_TO = re.compile(
    r"\b(how (?:to|do i|do you|can i|should i|would i|do we|can we)|steps?|procedure|install|"
    r"configure|set ?up|instructions?|walk me through|teach me|show me how|guide me|"
    r"what do i (?:do|need to do)|what should i do|process (?:for|of)|way to)\b|"
    r"如何|怎么|怎样|步骤|操作",
    re.IGNORECASE,
)
# A request in the imperative ("replace the gasket on ...", "make the grind finer") asks for
# the procedure that does it.
_IMPERATIVE = re.compile(
    r"^\W*(?:please\s+)?(?:add|adjust|assemble|attach|back ?up|calibrate|change|charge|check|"
    r"clean|clear|connect|create|delete|descale|disable|disconnect|drain|empty|enable|fill|fit|"
    r"fix|flush|format|install|lubricate|make|mount|pair|prepare|prime|program|remove|repair|"
    r"replace|reset|restart|restore|run|schedule|set|setup|start|stop|store|switch|test|"
    r"tighten|turn|uninstall|unlock|update|upgrade|use|winteri[sz]e|wire)\b",
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
    re.compile(
        r"\bhow\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+compare\s+(?:with|to|against)\s+(?P<b>.+)",
        re.I,
    ),
    re.compile(r"\bcompare\s+(?P<a>.+?)\s+(?:and|with|to|against|vs\.?|versus)\s+(?P<b>.+)", re.I),
    re.compile(r"\bdifferences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)", re.I),
    re.compile(
        r"\bhow\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+differ(?:ent)?\s+from\s+(?P<b>.+)", re.I
    ),
    re.compile(r"(?P<a>.+?)\s+(?:vs\.?|versus|compared (?:to|with)|or)\s+(?P<b>.+)", re.I),
    re.compile(
        r"(?:比较|对比)?(?P<a>.+?)(?:和|与|跟|同)(?P<b>.+?)(?:之间)?(?:的)?(?:有什么|有哪些|有何)?"
        r"(?:区别|不同|差异|比较|对比|相比)"
    ),
    re.compile(r"^(?:比较|对比)(?P<a>.+?)(?:和|与|跟|同)(?P<b>.+)"),
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
        "with you your explain deep detail please tell me about so if but than then",
    )
)
# Interrogative and auxiliary words ask; they name nothing a source must contain ("How long is
# the warranty?" is answered by "a warranty period of three years"). Never key terms.
_QUESTION_WORDS = frozenset(
    re.findall(
        r"\w+",
        "should would could will shall might must did has have had been being am were whom whose "
        "often frequently long much many far soon old big large heavy tall high wide deep hot "
        "cold fast my mine me we us our ours they them he him she his her up "
        # the how-to cues: "steps for X", "walk me through X" ask for X
        "steps step procedure procedures instructions instruction walk through teach guide "
        "process way "
        # verbs that ask rather than name: "what is meant by X", "how did X get its name"
        "meant meaning mean means called get got gets refer refers referred known happen "
        "happened happens",
    )
)
# Words of _QUESTION_WORDS that are content words outside a question phrase ("long press",
# "big end"): dropped only right after "how".
_AFTER_HOW = frozenset(
    (
        "long",
        "much",
        "many",
        "far",
        "soon",
        "old",
        "big",
        "large",
        "heavy",
        "tall",
        "high",
        "wide",
        "deep",
        "hot",
        "cold",
        "fast",
    )
)
# Latin words (with inner - . /) and CJK runs are separate tokens: "什么是waterglass" has two.
# Accented Latin words ("cuánto", "größe") are one token; so are Indic words with their vowel
# signs, which are combining marks outside \w.
_TOKEN = re.compile(
    r"[A-Za-z0-9\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f\-./]*|"
    r"(?:[^\W\dA-Za-z_\u00c0-\u024f]|[\u0900-\u0dff])+",
    re.UNICODE,
)

# Chinese has no spaces, so a CJK run is a whole clause ("水玻璃是什么"). As one key term it
# never matches a knowledge point name or a source sentence; key_terms cuts the question and
# function words out of it, without a dictionary (no segmenter dependency), in two steps:
# 1. Multi-character question phrases are cut wherever they occur: none of them is part of a
#    content word. Longest first, so 为什么 is not read as 为 + 什么.
_CJK_PHRASES = (
    "是什么", "什么是", "为什么", "为何", "什么样", "什么", "怎么样", "怎么", "怎样", "如何",
    "哪些", "哪个", "哪种", "哪里", "多少", "有什么", "有哪些", "有何", "是否", "能否", "或者",
    "区别", "差异", "不同", "比较", "对比", "相比", "之间", "请问", "介绍", "一下", "告诉我",
    "解释", "详细",
)  # fmt: skip
_CJK_PHRASE = re.compile("|".join(sorted(_CJK_PHRASES, key=len, reverse=True)))
# 2. Single characters do occur inside words (和平, 目的, 社会, 所有), so one is cut only where
#    every piece it leaves has 2+ characters (or nothing, at a run edge) and it is not part of
#    one of the common words in _CJK_KEEP. "世界和平组织" stays whole, "目的地" too (one
#    character on each side), "水玻璃和塑料杯的" gives 水玻璃, 塑料杯. Sentence particles
#    (吗 呢 吧: 吗啡, 吧台) are cut only at the end of a run, 请 (请求) only at its start.
# What is left stays whole, content words included: "如何校准光学平台" gives 校准光学平台, as
# cutting verb from object needs a dictionary; CJK terms match sources by bigrams anyway.
_CJK_CONNECTIVES = frozenset("的是和与跟及有会")
_CJK_FINAL = frozenset("吗呢吧")
_CJK_INITIAL = frozenset("请")
_CJK_SINGLE = _CJK_CONNECTIVES | _CJK_FINAL | _CJK_INITIAL  # never a term on its own
_CJK_KEEP = (
    "目的", "的确", "的士", "和平", "和谐", "温和", "总和", "缓和", "饱和", "中和", "调和",
    "但是", "于是", "就是", "还是", "总是", "只是", "可是", "凡是", "正是", "也是", "都是",
    "是非", "参与", "与会", "给与", "以及", "及时", "涉及", "普及", "危及", "跟踪", "跟随",
    "所有", "没有", "具有", "含有", "拥有", "共有", "固有", "特有", "占有", "有机", "有效",
    "有关", "有限", "有时", "有利", "有害", "有毒", "稀有", "社会", "会议", "学会", "协会",
    "机会", "大会", "会员", "会计", "体会", "误会", "不会", "宴会", "都会", "会话",
    "请求", "申请", "邀请",
)  # fmt: skip


class QueryPlan(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    scope: str
    intent: Intent
    depth: Depth
    operands: tuple[str, ...]  # compare operands as written, in order
    terms: tuple[str, ...]  # key terms for coverage checks
    budget: Budget
    reasons: tuple[str, ...]  # which cue decided intent and depth
    # The kind of value the question asks for (service/text/answer_types.py); None: no type.
    answer_type: AnswerType | None = None
    # (typed, scope word): typing slips corrected in `query` and `terms` (scope_words.py).
    spelling: tuple[tuple[str, str], ...] = ()
    # The scope's other forms of the terms' words ("balancing" for "balance"): optional
    # full-text clauses only (scope_words.py).
    forms: tuple[str, ...] = ()


# A question opens with an interrogative or an auxiliary ("where should I put ...", "is the
# lid ...", "who sang ..."), or asks to be told ("explain water glass", "tell me about optical
# bench drift", "optical bench drift overview"); a request to do something does neither ("hang
# the controller in my garage", "saving the router configuration to a file").
_ASKING = re.compile(
    r"^\W*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|am|do|does|did|can|"
    r"could|will|would|shall|should|may|might|must|has|have|had|name|list|tell me|tell us|"
    r"explain|describe|define|summari[sz]e|outline|give me an? (?:overview|summary))\b|"
    r"\b(?:overview|summary|introduction|definition|explanation|meaning|details|information|"
    r"info)\W*$|[?？]\s*$|^\s*[^\x00-\x7f]",
    re.IGNORECASE,
)


def asks_for_steps(plan: QueryPlan) -> bool:
    """A how-to question, or a request without an asked-for value ("hang the GreenLoop in my
    garage"): what a procedure answers."""
    return plan.intent == "how_to" or (
        plan.intent == "generic" and plan.answer_type is None and is_request(plan.query)
    )


def is_request(query: str) -> bool:
    """The query asks for something to be done, not to be told something: it neither opens
    with an interrogative, an auxiliary or a verb of telling, nor ends with a question mark or
    a noun of telling (text in other scripts is treated as a question)."""
    return _ASKING.search(query) is None


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
    elif (_HOW_TO.search(text) or _IMPERATIVE.search(text)) and not _asks_a_value(text):
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
        answer_type=None if intent in ("how_to", "compare") else expected_type(text),
    )


def _asks_a_value(text: str) -> bool:
    """A wh-question for a typed value whose only procedure cue is a word of its subject ("At
    what time does the inverter install updates?", "How long does the descaling procedure
    take?") asks for the value, not the steps; "how do I ..." still asks for steps."""
    if _ASKS_HOW.search(text):
        return False
    kind = expected_type(text)
    return kind is not None and kind.name != "yes_no"


_ASKS_HOW = re.compile(
    r"\bhow (?:to|do i|do you|can i|should i|would i|do we|can we)\b|\bwalk me through\b|"
    r"\bteach me\b|\bshow me how\b|\bguide me\b|\bwhat (?:do i|should i) (?:do|need to do)\b",
    re.IGNORECASE,
)


def key_terms(text: str) -> tuple[str, ...]:
    """Content words (lower-case) and the pieces of CJK runs between question and function
    words, in order, without duplicates."""
    terms: list[str] = []
    previous = ""
    for token in _TOKEN.findall(text.lower()):
        token = token.strip("-./")
        after_how, previous = previous == "how", token
        if token.isascii():
            asks = token in _QUESTION_WORDS and (token not in _AFTER_HOW or after_how)
            if len(token) > 1 and token not in _STOPWORDS and not asks:
                terms.append(token)
        else:
            terms.extend(_cjk_terms(token))
    return tuple(dict.fromkeys(terms))


def _cjk_terms(run: str) -> list[str]:
    """The pieces of one CJK run (or other non-Latin run) once the question phrases and the
    function characters allowed by the rule above are cut out."""
    pieces: list[str] = []
    for part in _CJK_PHRASE.split(run):
        if len(part) > 2 and part[-1] in _CJK_FINAL and not _in_kept_word(part, len(part) - 1):
            part = part[:-1]
        if len(part) > 2 and part[0] in _CJK_INITIAL and not _in_kept_word(part, 0):
            part = part[1:]
        pieces.extend(_split_connectives(part))
    return [p for p in pieces if p and not (len(p) == 1 and p in _CJK_SINGLE)]


def _split_connectives(part: str) -> list[str]:
    """Cut `part` at connective characters, left to right, where the piece before the cut has
    2+ characters (or none: run start or right after another cut) and so has the rest."""
    pieces: list[str] = []
    start = 0
    for i, char in enumerate(part):
        if char not in _CJK_CONNECTIVES or _in_kept_word(part, i):
            continue
        before, rest = i - start, len(part) - i - 1
        if (before == 0 or before >= 2) and (rest == 0 or rest >= 2):
            pieces.append(part[start:i])
            start = i + 1
    pieces.append(part[start:])
    return [p for p in pieces if p]


def _in_kept_word(part: str, i: int) -> bool:
    """Whether the character at `i` belongs to one of the _CJK_KEEP words in `part`."""
    return any(
        part.startswith(word, i - offset)
        for word in _CJK_KEEP
        for offset in range(len(word))
        if word[offset] == part[i] and i - offset >= 0
    )


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
