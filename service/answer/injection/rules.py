"""Instruction patterns: the sentences that address a model rather than a reader."""

from __future__ import annotations

import re

import msgspec

from service.answer.injection.model import normalize
from service.text.text_cache import paragraph_cache

__all__ = ["is_instruction"]

# --- instruction patterns ---------------------------------------------------------------------

_I = re.IGNORECASE
# Who an injection addresses. "assistant" and "model" alone are not here: a lab assistant and a car
# model are ordinary subjects of manuals; they count only in role markers ("Assistant:").
_AI = (
    r"(?:ai|a\.i\.|artificial intelligence|ai assistants?|ai models?|ai systems?|ai agents?|"
    r"(?:large )?language models?|llms?|chat ?bots?|chatgpt|gpt-?\d?|virtual assistants?)"
    r"(?!\s+(?:researchers?|engineers?|developers?|students?|experts?|compan(?:y|ies)|"
    r"practitioners?|enthusiasts?|scientists?|ethics|research|act|camera|chips?|features?))"
)
_ANSWER = (
    r"(?:answers?|repl(?:y|ies)|responses?|outputs?|summar(?:y|ies)|completions?)"
    r"(?!\s+(?:box|boxes|sheet|field|key|form|card|time|rate|code|curve|signal|voltage|object|"
    r"objects|headers?|body|stream|status|event|events|buffer|file|files|format|mode|"
    r"to (?:the|a|your) (?:customer|client|email|e-mail|letter|ticket|complaint|caller)))"
)
_PRIOR = r"(?:previous|prior|preceding|above|earlier|foregoing|former|original|initial|system)"
_RULES = (
    r"(?:instructions?|prompts?|rules|directions|directives|guidelines|guidance|context|messages?|"
    r"commands?|orders|constraints|polic(?:y|ies)|programming|restrictions)"
)
_START = r"^\W{0,6}(?:(?:please|kindly|now|so|then|and|also|ok|okay)[,\s]+)*"
# A cheap gate for the patterns that need an AI addressee.
_AI_GATE = re.compile(
    r"\b(?:ai|a\.i\.|artificial intelligence|language model|llm|chat ?bot|chatgpt|gpt|"
    r"virtual assistant)",
    _I,
)


class _Rule(msgspec.Struct, frozen=True):
    """A pattern and the tokens it cannot match without: each group of `gate` has a token in the
    text (casefolded words, single symbols; "@ai" stands for _AI_GATE). Set tests in C skip most
    patterns for most text. `loose` is the pattern without its sentence-start anchor, for whole
    blocks."""

    gate: tuple[frozenset[str], ...]
    pattern: re.Pattern[str]
    loose: re.Pattern[str]


def _rule(gate: str, pattern: str, flags: int = 0) -> _Rule:
    """`gate`: "a|b&c" is (a or b) and c."""
    groups = tuple(frozenset(g.split("|")) for g in gate.split("&"))
    loose = pattern.removeprefix(_START).removeprefix("^\\W{0,6}").removeprefix("^")
    return _Rule(groups, re.compile(pattern, flags), re.compile(loose, flags))


_TOKEN = re.compile(r"[^\W_]+|\S")


# Each of these alone makes a sentence an instruction to a model.
_STRONG_EN: list[_Rule] = [
    # Override the model's instructions: the object is instructions or prompts, never a warning
    # light or a reading ("Ignore the warning light if the engine is cold").
    _rule(
        "ignore|disregard|forget|override|bypass|discard|abandon|aside&"
        "instruction|instructions|prompt|prompts|rules|directions|directives|"
        "guidelines|guidance|context|message|messages|command|commands|orders|"
        "constraints|policy|policies|programming|restrictions",
        rf"\b(?:ignore|disregard|forget|override|bypass|discard|abandon|set aside)\s+"
        rf"(?:(?:all|any|every|each|of|the|your|my|these|those|everything)\s+){{0,3}}{_PRIOR}\s+"
        rf"(?:\w+\s+)?{_RULES}\b",
        _I,
    ),
    _rule(
        "ignore|disregard|forget&your",
        rf"\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?your\s+(?:\w+\s+)?{_RULES}\b",
        _I,
    ),
    # "Ignore the above." opens a sentence; "..., ignore the above." closes a manual's note.
    _rule(
        "ignore|disregard|forget&above|before|told",
        rf"{_START}(?:ignore|disregard|forget)\s+(?:(?:all|everything|anything|of|the|that)\s+)"
        r"{0,3}(?:above|before|you (?:were|have been) told)\b",
        _I,
    ),
    _rule(
        "ignore|disregard&question|questions|query|queries|request|prompt",
        r"\b(?:ignore|disregard)\s+(?:the|this|that|any|my|the user'?s?)\s+"
        r"(?:questions?|query|queries|request|prompt)\b(?!\s*(?:marks?|box|field))",
        _I,
    ),
    _rule(
        "void|null|cancelled|canceled|revoked|obsolete|superseded|lifted|"
        "suspended|disabled|overridden|invalid|longer&instruction|instructions|"
        "prompt|prompts|rules|directions|directives|guidelines|guidance|context|"
        "message|messages|command|commands|orders|constraints|policy|policies|"
        "programming|restrictions",
        rf"\b{_PRIOR}\s+(?:\w+\s+)?{_RULES}\s+(?:are|is|have been|has been|were)\s+(?:now\s+)?"
        r"(?:void|null|cancell?ed|revoked|obsolete|superseded|lifted|suspended|disabled|"
        r"overridden|invalid|no longer (?:valid|apply|applicable|in effect|binding))",
        _I,
    ),
    _rule(
        "longer",
        rf"\bno longer (?:bound by|need to follow|have to follow) (?:your|the|any) {_RULES}",
        _I,
    ),
    # A new identity for the reader.
    _rule(
        "now&you",
        rf"\byou are now (?:an? |the |in |called |named |my )?(?:{_AI}\b|\w*bot\b|\w*gpt\b|dan\b|"
        r"(?:a |an )?(?:different |new )?(?:persona|character)|jailbroken|unrestricted|unfiltered|"
        r"uncensored|free from (?:your|all|any)|no longer (?:an?|bound|restricted))",
        _I,
    ),
    _rule("now&you", r"\byou are now [A-Z][a-z]+[A-Z]\w*"),  # "you are now DebugBot"
    _rule(
        "now|henceforth|conversation",
        rf"\b(?:from now on|henceforth|starting now|for the rest of this conversation),?\s+"
        rf"(?:(?:you\s+(?:will|must|shall|should|may|can)\s+)?(?:only\s+)?(?:answer|reply|"
        rf"respond|say|output)\b|you (?:are|will be|act as) (?:an? |the )?(?:{_AI}\b|\w*bot\b|"
        r"\w*gpt\b|persona|character))",
        _I,
    ),
    _rule(
        "pretend|role|roleplay|now|been",
        r"\b(?:pretend (?:to be|that you are|you are) (?:an? |the )?(?:\w+\s+)?(?:ai|assistant|"
        r"bot|model|different|unrestricted)|role-?play as|you will now (?:act|behave|respond|"
        r"answer|reply|speak) (?:as|like|only)|you have been (?:reprogrammed|jailbroken|unlocked|"
        r"freed|updated\W+(?:append|reply|answer|respond|say|ignore|you)))\b",
        _I,
    ),
    _rule(
        "new&instruction|instructions|system|prompt|persona|identity",
        r"\bnew (?:instructions?|system prompt|prompt|persona|identity)\s*[:：]|"
        r"\bnew system prompt\b",
        _I,
    ),
    _rule(
        "instruction|instructions&updated|new|revised|real|actual|true",
        r"\b(?:updated|new|revised|real|actual|true) (?:system )?instructions? (?:for|to) "
        rf"(?:you|the (?:assistant|model)|(?:the |any )?{_AI})\b",
        _I,
    ),
    # The prompt itself: asked for or replaced.
    _rule(
        "prompt|instruction|instructions|rules&system|reveal|print|output|show|"
        "repeat|leak|dump|display|disclose|recite|write",
        r"\b(?:your|the hidden|hidden|new|original|initial|secret|full|complete|entire) "
        r"system prompt\b|\bsystem prompt\s*[:：]|\b(?:reveal|print|output|show|repeat|leak|dump|"
        r"display|disclose|recite|write out)\s+(?:me\s+|us\s+)?(?:(?:your|the)\s+(?:\w+\s+){0,2}"
        r"(?:system prompt|hidden prompt|initial prompt|original prompt|secret instructions|"
        r"hidden instructions)|your (?:\w+\s+){0,2}(?:prompt|instructions|rules))\b",
        _I,
    ),
    # Secrets only the service itself could leak ("Never share your password" stays text).
    _rule(
        "print|reveal|output|list|dump|leak|disclose|expose|share|send|post|"
        "tell&env|environment|see|access|given|know|neo4j|api|secret|"
        "credentials",
        r"\b(?:print|reveal|output|list|dump|leak|disclose|expose|share|send|post|tell)\b[^.]{0,80}"
        r"(?:(?<![\w.])\.env\b|\benvironment variables?\b[^.]{0,40}\b(?:\w*key|secret|token|"
        r"password)|"
        r"\b(?:secrets?|keys|passwords?|credentials|tokens)\b[^.]{0,20}\byou (?:can see|have "
        r"access to|were given|know)|\bneo4j password\b|\byour (?:own )?(?:api key|secret key|"
        r"credentials)\b)",
        _I,
    ),
    _rule("as&@ai", rf"\bas an? {_AI}(?:\s+(?:language model|model|assistant))?\s*[,:;]", _I),
    _rule("as&@ai", r"\bas an? ai (?:language model|model|assistant)\b", _I),
    # Chat-template and role markers: never part of a manual's prose.
    _rule(
        "<|[",
        r"<\|?\s*/?\s*(?:system|assistant|im_start|im_end|endoftext|sys|begin_of_text|"
        r"start_header_id|end_header_id|eot_id)\s*\|?>|<\|\s*user\s*\|>|<<\s*/?\s*SYS\s*>>|"
        r"\[/?INST\]",
        _I,
    ),
    _rule("[&system|assistant|user|ai&:", r"\[/?(?:system|assistant|user|ai)\]\s*[:：]", _I),
    _rule("assistant|chatbot|@ai&:", rf"^\W{{0,6}}(?:assistant|chatbot|{_AI})\s*[:：]", _I),
    _rule(
        "override",
        r"(?:system|prompt|format|instruction|policy|admin)\s+override\s*(?:[:：#!]|$)",
        _I,
    ),
    _rule(
        "`&system|assistant|prompt|instruction|instructions",
        r"```\s*(?:system|assistant|prompt|instructions?)\b",
        _I,
    ),
    # Notes and hidden instructions addressed to a model.
    _rule(
        "@ai",
        rf"\b(?:note|notes|message|instructions?|reminder|memo|notice|attention|hint|directive|"
        rf"request|warning|important|p\.?s\.?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|every\s+)?"
        rf"(?:\w+\s+)?{_AI}\b",
        _I,
    ),
    _rule("@ai", rf"\b(?:dear|hey|hello|attention|calling all)\s*,?\s+(?:the\s+)?{_AI}\b", _I),
    _rule("@ai", rf"\b(?:if|when) you are an? (?:\w+\s+)?{_AI}\b", _I),
    _rule(
        "@ai",
        rf"\b(?:any|all|every|each|the)\s+{_AI}\s+(?:reading|processing|summari[sz]ing|"
        r"parsing|indexing|answering|that reads|that processes)\b",
        _I,
    ),
    _rule(
        "@ai",
        rf"\b{_AI}\s+(?:must|should|shall|will|are required to|is required to|are "
        r"instructed to|is instructed to|need to|needs to)\s+(?:\w+\s+){0,2}(?:say|reply|"
        r"respond|answer|output|print|write|include|append|prepend|add|ignore|disregard|"
        r"reveal|repeat|translate|refuse|decline|mention|tell|state|claim|call|fetch|"
        r"visit|begin|start|end)\b",
        _I,
    ),
    _rule("hidden|secret&instruction|instructions", r"\b(?:hidden|secret) instructions?\b", _I),
    _rule(
        "translator",
        rf"\btranslator instructions?\s*[:：][^.]{{0,80}}\b(?:your|the) (?:whole |entire "
        rf"|full )?{_ANSWER}",
        _I,
    ),
    # Orders about the answer being produced: its content, form, start or end.
    _rule(
        "reply|respond|answer&with",
        r"(?:^|[:;,]\s*|\b(?:please|kindly|you (?:must|should|shall|will|need to)|now|then|always|"
        r"instead|simply|just)\s+)(?:reply|respond|answer)\s+(?:only\s+|just\s+|simply\s+)?"
        r"with\s+(?:the\s+|a\s+)?(?:single\s+|one\s+|exact\s+)?(?:word|text|phrase|reply|string|"
        r"token|tag|marker|sentence|line|message|code)\b",
        _I,
    ),
    _rule(
        "reply|respond|answer|output|print|say|write|return&only|just|solely|exclusively|nothing",
        r"\b(?:reply|respond|answer)\s+(?:only|just|solely|exclusively|nothing but|with nothing "
        r"but)\s+(?:with\b|in\b|[\"“'‘«])|\b(?:output|print|say|write|return)\s+(?:only|just|"
        r"nothing but|nothing except)\s+(?:the (?:word|text|phrase|string|token|marker)\b|"
        r"[\"“'‘«])",
        _I,
    ),
    _rule(
        "answer|reply|respond&every|each|any|all",
        r"\b(?:answer|reply|respond)\s+(?:to\s+)?(?:every|each|any|all)\s+(?:future\s+|"
        r"subsequent\s+|further\s+)?(?:questions?|prompts?|queries|messages?|requests?)\s+"
        r"(?:with|by|using|in)\b",
        _I,
    ),
    _rule(
        "answer&correct|only|right|true|real",
        r"\b(?:correct|only|right|true|real) answer to (?:any|every|all|each) "
        r"(?:\w+\s+)?questions?\b",
        _I,
    ),
    _rule(
        "translate|replace|rewrite&answer|answers|reply|replies|response|"
        "responses|output|outputs|summary|summaries|completion|completions",
        rf"\b(?:translate|replace|rewrite)\s+(?:your|this|the|every|each)\s+(?:whole\s+|"
        rf"entire\s+|full\s+|final\s+)?{_ANSWER}\b",
        _I,
    ),
    _rule(
        "incomplete|invalid|wrong&answer|answers|reply|replies|response|"
        "responses|output|outputs|summary|summaries|completion|completions",
        rf"\b(?:your|the|this)\s+{_ANSWER}\s+(?:is|will be)\s+(?:incomplete|invalid|wrong)\s+"
        r"(?:unless|if you do not|without)\b",
        _I,
    ),
    _rule(
        "status|regardless|mark",
        r"\bset\s+(?:the\s+)?(?:answer\s+|response\s+)?status\s+to\s+(?:sufficient|verified|"
        r"answered|insufficient|approved|trusted)\b|\bregardless of the evidence\b|\bmark (?:this|"
        r"the|your) (?:answer|response|reply) as\b",
        _I,
    ),
    _rule(
        "citing|cite",
        r"\b(?:i will|i'll) (?:now )?stop citing\b|\bstop citing (?:your |the |any )?"
        r"sources\b|\bcite (?:only )?this (?:sentence|page|document) only\b",
        _I,
    ),
    _rule(
        "refuse|decline",
        r"\b(?:refuse|decline) to answer (?:any|every|all|the user|questions)\b",
        _I,
    ),
    _rule(
        "summarise|summarising|summarize|summarizing|paraphrase|paraphrasing|"
        "answering|responding|replying",
        r"\bwhen (?:you )?(?:summari[sz](?:e|ing)|paraphras(?:e|ing)) (?:this|the) (?:page|"
        r"document|text|article|passage|content)\b|\bwhen (?:answering|responding to|replying to) "
        r"(?:any|this|the user'?s?) (?:question|query) about\b",
        _I,
    ),
    _rule(
        "conversation|chat|dialogue|history|question|prompt|session&fetch|visit|"
        "open|call|post|send|upload|forward|submit|exfiltrate|transmit",
        r"\b(?:fetch|visit|open|call|post|send|upload|forward|submit|exfiltrate|transmit)\b"
        r"[^.]{0,80}\b(?:the|this|our|your|the user'?s?)\s+(?:whole\s+|full\s+|entire\s+)?"
        r"(?:conversation|chat|dialogue|chat history|history|question|prompt|session)\b"
        r"[^.]{0,40}\b(?:to|at)\b",
        _I,
    ),
    _rule(
        "https|http|ftp&post|send|upload|forward|submit|exfiltrate|transmit",
        r"\b(?:post|send|upload|forward|submit|exfiltrate|transmit)\b[^.]{0,60}\bto\s+"
        r"https?://",
        _I,
    ),
    _rule(
        "tool|function&call|invoke|use|run|execute|trigger&user|argument|conversation",
        r"\b(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?(?:tool|function)\b"
        r"[^.]{0,80}\b(?:with the (?:argument|user'?s?)|the user'?s?|the conversation)",
        _I,
    ),
]
# Orders that need a payload to be about the answer: "Include the order number in your reply"
# is support-desk advice, "include the link http://... in your answer" is an injection.
# Within one clause: a dot inside a URL or domain ("evil.example/exfil") does not end it.
_CLAUSE = r"(?:[^.;!?]|[.!?](?=\S))"
_ANSWER_EDIT_EN = re.compile(
    rf"\b(?:append|prepend|add|include|insert|attach|put|place|embed|write|end|begin|start|"
    rf"finish|sign|close|open|prefix|suffix|format|mark|label|wrap)\b{_CLAUSE}{{0,120}}?\b(?:to|in|"
    rf"into|at the (?:end|start|beginning|top|bottom) of|before|after|with|as)\s+(?:your|every|"
    rf"each|any|all|this|the final)\s+(?:\w+\s+)?{_ANSWER}\b|\bbefore (?:you )?(?:answer|"
    rf"respond|reply)(?:ing)?\s*[:,]|\b(?:begin|start|end|prefix|sign|wrap|format)\s+(?:your|"
    rf"every|each)\s+(?:whole\s+|entire\s+)?{_ANSWER}\b",
    _I,
)
_PAYLOAD = re.compile(
    r"(?:https?|ftp)://|\bwww\.|!?\[[^\]]*\]\(|[\"“”「」『』«]|(?<!\w)'[^']{2,}'(?!\w)|"
    r"\b(?:link|image|url|hyperlink|pixel|tracking|the (?:word|words|sentence|phrase|tag|marker|"
    r"text))\b|(?<![A-Za-z])[A-Z]{4,}(?![A-Za-z])",
)
# "Include this link in the answer: [chart](https://...)": with "the answer" (not "your"), only a
# link makes it an order about the answer ("adds HTTP trailing headers to the response" is not).
_ANSWER_LINK_EN = re.compile(
    rf"\b(?:append|prepend|add|include|insert|attach|embed|put|place|show|render)\b{_CLAUSE}{{0,120}}?"
    r"\b(?:to|in|into|at the (?:end|start|beginning|top|bottom) of)\s+the\s+(?:final\s+)?"
    r"(?:answer|reply)\b",
    _I,
)
_LINK = re.compile(r"(?:https?|ftp)://|\bwww\.|!?\[[^\]]*\]\(", _I)
# Only in a block that also holds a strong instruction: alone they are ordinary text ("Developer
# mode enabled" is an Android toast, "System: Ubuntu 22.04" a spec line, "End of document." a
# footer, "New task:" a project note) but next to an attack they are its framing.
_WEAK_EN = [
    re.compile(
        r"\b(?:developer|debug|god|jailbreak|dan|admin|maintenance|unrestricted) mode\b", _I
    ),
    re.compile(r"^\W{0,6}end of (?:the )?(?:document|context|input|text|page|file|data)\W*$", _I),
    re.compile(r"^\W{0,6}(?:system|user|human|admin|operator|developer)\s*[:：]", _I),
    re.compile(
        r"^\W{0,6}(?:#+\s*)?(?:important\s+)?system\s+(?:override|notice|message|alert|"
        r"update|instructions?|directive|command)s?\b",
        _I,
    ),
    re.compile(
        r"\b(?:system|security|safety|policy|prompt|format|instruction|admin) override\b", _I
    ),
    re.compile(r"\bnew (?:task|tasks|rules|objective|directive|role)\s*[:：]", _I),
    re.compile(
        r"\bthe user is an? (?:administrator|admin|developer|superuser|root|verified|"
        r"trusted|authori[sz]ed)\b",
        _I,
    ),
    re.compile(r"\b(?:to )?whoever (?:reads|is reading|processes) this\b", _I),
    re.compile(r"\btop priority\b|\bhighest priority\b|\bpriority\s*:\s*highest\b", _I),
    re.compile(r"^\W{0,6}(?:sure|okay|ok|understood|certainly)[!.,]", _I),
    re.compile(r"\]\]>|</?document>|</?context>|</?data>", _I),
]

_CJK_AI = (
    r"(?:AI|人工智能|语言模型|大模型|大语言模型|AI助手|智能助手|人工智能助手|聊天机器人|机器人|模型|"
    r"助手)"
)
_ZH_PRIOR = r"(?:之前|此前|以前|先前|前面|上面|以上|上述|原来|原有|原先|原始|系统)"
_ZH_RULES = r"(?:指令|指示|命令|规则|提示词|设定|约束)"
_STRONG_ZH = [
    # 忽略之前的所有指令: an instruction noun after a qualifier. 提示/说明/要求 are everyday
    # manual words ("若已安装，可忽略以上提示"), so with them the override must open the sentence.
    re.compile(
        rf"(?:忽略|无视|忘记|忘掉|不要理会|不要遵守|不必遵守|不再遵守|推翻)掉?你?"
        rf"(?:{_ZH_PRIOR}的?(?:所有|全部|一切|任何)?|(?:所有|全部|一切|任何)){_ZH_PRIOR}?的?"
        rf"(?:所有|全部|一切)?的?{_ZH_RULES}",
        _I,
    ),
    re.compile(
        rf"^\W{{0,6}}请?(?:忽略|无视|忘记|忘掉)掉?你?(?:{_ZH_PRIOR}的?(?:所有|全部|一切)?|所有|全部|一切)的?"
        r"(?:提示|说明|要求|内容)",
        _I,
    ),
    re.compile(
        rf"(?:{_ZH_PRIOR}|所有)的?(?:所有)?(?:{_ZH_RULES}|提示)(?:已经?|均|全部|都)?"
        r"(?:作废|失效|无效|取消|被覆盖|不再有效|不再适用)"
    ),
    re.compile(
        r"你现在是(?!在|否|不是|第)|从现在(?:开始|起)[，,]?\s*你(?:是|将|必须|要|只|应)"
        r"|你(?:现在)?(?:要)?(?:扮演|充当|假装)|你现在(?:扮演|充当)"
    ),
    re.compile(
        r"系统提示词|(?:新的?|你的|隐藏的?|原始的?|内部的?|完整的?)系统提示|"
        r"(?:输出|显示|打印|泄露|透露|重复|告诉我)(?:你的)?(?:系统提示|提示词|初始指令|隐藏指令)"
    ),
    re.compile(
        r"(?:只|仅|只能|仅仅|只需)(?:回复|回答|输出|返回|说)(?:[：:“\"「『]|一个|一句|以下|这个|"
        r"单词|字样|英文|大写)"
    ),
    re.compile(
        r"作为(?:一个|一名)?(?:AI|人工智能|语言模型|大模型|大语言模型)(?:助手|模型)?\s*[，,]|"
        r"作为(?:一个|一名)?(?:AI|人工智能)(?:助手|语言模型)",
        _I,
    ),
    re.compile(
        r"^\W{0,6}(?:AI|智能)?助手\s*[：:]|[【\[](?:系统|助手|用户|系统指令|系统消息)[】\]]", _I
    ),
    re.compile(
        rf"(?:致|给|写给|提醒|告)(?:所有|任何|各位)?{_CJK_AI}的?(?:提示|说明|指令|注意|留言|"
        r"备注|消息|通知)?\s*[：:]",
        _I,
    ),
    re.compile(
        rf"{_CJK_AI}(?:请|必须|应当|应该|需要|务必|须|要)(?:只)?(?:回复|回答|输出|忽略|声称|"
        r"告诉用户|在回答|在答案|附上|加上|添加|翻译|拒绝|说)",
        _I,
    ),
    re.compile(rf"(?:如果|若|假如)你是(?:一个|一名)?{_CJK_AI}", _I),
    re.compile(
        r"(?:在|于)(?:你的|每个|每一个|所有|任何)(?:回答|回复|答案|输出)的?(?:中|里|末尾|结尾|"
        r"开头|最后|前面|后面|最前面|最后面)(?:都|必须|务必|请)?(?:加上|附上|包含|添加|写上|"
        r"插入|注明|附加|放上|带上)"
    ),
    re.compile(r"(?:把|将)(?:你的)?(?:整个|全部)?(?:回答|回复|答案)(?:翻译|改写|替换|改成|换成)"),
    re.compile(
        r"拒绝回答(?:任何|所有|用户)|不要回答(?:任何|所有)(?:问题)?|(?:任何|所有)问题的?"
        r"(?:正确)?(?:答案|回答)(?:都|均)?(?:是|为)"
    ),
    re.compile(r"新的?(?:指令|系统提示|身份)\s*[：:]"),
    re.compile(r"(?:隐藏|秘密)(?:指令|指示)|系统(?:指令|消息)\s*[：:]"),
]
_WEAK_ZH = [
    re.compile(r"^\W{0,6}(?:系统|用户|管理员)\s*[：:]"),
    re.compile(r"(?:开发者|调试|管理员)模式"),
    re.compile(r"^\W{0,6}(?:文档|文件|正文)(?:结束|完)\W*$"),
    re.compile(r"新的?(?:任务|规则|角色)\s*[：:]|系统通知|最高优先级"),
]


def is_instruction(sentence: str) -> bool:
    """One sentence, on its own terms: does it instruct a model? (Strong signals only.)"""
    return _strong(normalize(sentence))


@paragraph_cache("function")
def _strong(text: str) -> bool:
    return _matches(text, loose=False)


def _matches(text: str, *, loose: bool) -> bool:
    """Does a strong rule match the sentence (or, loose, anywhere in the block)?"""
    low = text.casefold()
    tokens = set(_TOKEN.findall(low))
    if _AI_GATE.search(low):
        tokens.add("@ai")
    candidates = {i for token in tokens for i in _RULES_BY_TOKEN.get(token, ())}
    for i in sorted(candidates):
        rule = _STRONG_EN[i]
        if all(not group.isdisjoint(tokens) for group in rule.gate[1:]) and (
            rule.loose if loose else rule.pattern
        ).search(text):
            return True
    if (
        not _EDIT_GATE.isdisjoint(tokens)
        and _PAYLOAD.search(text)
        and (_ANSWER_EDIT_EN.search(text) or (_LINK.search(text) and _ANSWER_LINK_EN.search(text)))
    ):
        return True
    return _has_cjk(text) and any(p.search(text) for p in (_LOOSE_ZH if loose else _STRONG_ZH))


_EDIT_GATE = frozenset(_rule(
    "answer|answers|answering|reply|replies|replying|respond|responding|response|responses|"
    "output|outputs|summary|summaries|completion|completions", ""
).gate[0])  # fmt: skip
# The rules whose first gate group holds a token: a block's tokens name the few rules to try.
_RULES_BY_TOKEN: dict[str, tuple[int, ...]] = {
    token: tuple(i for i, r in enumerate(_STRONG_EN) if token in r.gate[0])
    for token in {t for r in _STRONG_EN for t in r.gate[0]}
}
_LOOSE_ZH = [re.compile(p.pattern.removeprefix("^\\W{0,6}"), p.flags) for p in _STRONG_ZH]


def _weak(text: str) -> bool:
    return any(p.search(text) for p in (*_WEAK_EN, *_WEAK_ZH))


_CJK = re.compile("[\u3400-\u9fff]")


def _has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None
