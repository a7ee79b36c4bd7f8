import pytest

from service.pipeline.plan import key_terms, plan_query


@pytest.mark.parametrize(
    ("query", "intent", "operands"),
    [
        ("what is waterglass?", "definition", ()),
        ("What are vector indexes", "definition", ()),
        ("水玻璃是什么？", "definition", ()),
        ("compare water glass and plastic cup", "compare", ("water glass", "plastic cup")),
        ("Water glass vs plastic cup?", "compare", ("Water glass", "plastic cup")),
        ("difference between TCP and UDP", "compare", ("TCP", "UDP")),
        ("how does QUIC differ from TCP?", "compare", ("QUIC", "TCP")),
        ("水玻璃和塑料杯的区别是什么？", "compare", ("水玻璃", "塑料杯")),
        ("why does bread dough rise?", "causal", ()),
        ("为什么面团会发酵", "causal", ()),
        ("how to season a cast iron pan", "how_to", ()),
        ("如何校准棱镜", "how_to", ()),
        ("caramel colour", "generic", ()),
    ],
)
def test_intent_and_operands(query: str, intent: str, operands: tuple[str, ...]) -> None:
    plan = plan_query(query, "s")
    assert plan.intent == intent
    assert plan.operands == operands


def test_depth_and_budget_profiles() -> None:
    assert plan_query("what is TLS", "s").budget.profile == "base"
    assert plan_query("what is TLS", "s").budget.fragments == 14
    causal = plan_query("why does TLS need a handshake", "s")
    assert (causal.depth, causal.budget.profile, causal.budget.total_chars) == (
        "normal",
        "causal",
        7600,
    )
    deep = plan_query("explain the TLS handshake in detail", "s")
    assert (deep.depth, deep.budget.profile, deep.budget.fragment_chars) == ("deep", "deep", 1600)
    requested = plan_query("what is TLS", "s", depth="deep")
    assert requested.budget.profile == "deep" and "requested" in requested.reasons[-1]


def test_key_terms_drop_stopwords_and_keep_order() -> None:
    assert key_terms("What is the difference between HTTP/2 and QUIC?") == ("http/2", "quic")
    assert key_terms("compare a and a") == ()
    # Pronouns and conjunctions name nothing a page must hold.
    assert key_terms("the vet is closed, so where should I take him if it is late?") == (
        "vet", "closed", "take", "late",
    )  # fmt: skip


def test_whitespace_is_normalised() -> None:
    assert plan_query("  what   is\nTLS ", "s").query == "what is TLS"


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        # question phrases are cut wherever they stand
        ("水玻璃是什么？", ("水玻璃",)),
        ("什么是水玻璃", ("水玻璃",)),
        ("请问水玻璃是什么", ("水玻璃",)),
        ("请介绍一下泡花碱", ("泡花碱",)),
        # connectives split a run when every piece keeps 2+ characters
        ("水玻璃和塑料杯有什么区别", ("水玻璃", "塑料杯")),
        ("水玻璃和塑料杯的区别是什么？", ("水玻璃", "塑料杯")),
        ("为什么水玻璃会变硬", ("水玻璃", "变硬")),
        ("水玻璃的模数是什么", ("水玻璃", "模数")),
        ("水玻璃与硅胶及苏打", ("水玻璃", "硅胶", "苏打")),
        ("水玻璃会变硬吗", ("水玻璃", "变硬")),
        # no dictionary: the content after a question word stays one term
        ("如何校准光学平台", ("校准光学平台",)),
        # mixed script: the Latin word as before, the question words dropped
        ("什么是waterglass？", ("waterglass",)),
        ("Neo4j是图数据库吗", ("neo4j", "图数据库")),
        ("是什么", ()),
    ],
)
def test_chinese_key_terms_drop_question_and_function_words(
    query: str, terms: tuple[str, ...]
) -> None:
    assert key_terms(query) == terms
    assert plan_query(query, "s").terms == terms


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("目的地", ("目的地",)),  # 的 with one character on each side
        ("世界和平组织", ("世界和平组织",)),  # 和 inside 和平, though both sides have 2+
        ("前往目的地的路线", ("前往目的地", "路线")),  # only the second 的 is a connective
        ("和平是什么", ("和平",)),
        ("所有的材料", ("所有", "材料")),
        ("社会和经济", ("社会", "经济")),
        ("有机化学", ("有机化学",)),
        ("吗啡是什么", ("吗啡",)),  # 吗 is cut only at the end of a run
        ("吧台", ("吧台",)),
        ("请求处理", ("请求处理",)),  # 请 only at the start, and not in 请求
    ],
)
def test_chinese_words_holding_a_function_character_stay_whole(
    query: str, terms: tuple[str, ...]
) -> None:
    assert key_terms(query) == terms


@pytest.mark.parametrize(
    "query",
    [
        "水玻璃和塑料杯有什么区别",
        "水玻璃与塑料杯有哪些不同",
        "水玻璃跟塑料杯之间的差异",
        "比较水玻璃和塑料杯？",
        "对比水玻璃与塑料杯的区别",
    ],
)
def test_chinese_compare_operands_without_question_words(query: str) -> None:
    plan = plan_query(query, "s")
    assert (plan.intent, plan.operands) == ("compare", ("水玻璃", "塑料杯"))


def test_chinese_intents_read_the_raw_question() -> None:
    assert plan_query("水玻璃是什么？", "s").intent == "definition"
    assert plan_query("为什么水玻璃会变硬", "s").intent == "causal"
    assert plan_query("如何校准光学平台", "s").intent == "how_to"
    assert plan_query("详细解释水玻璃的模数", "s").depth == "deep"


@pytest.mark.parametrize(
    ("query", "operands"),
    [
        ("how does version 1.0 retry limit compare with version 2.0 retry limit?",
         ("version 1.0 retry limit", "version 2.0 retry limit")),
        ("staging webhook endpoint compared to production webhook endpoint",
         ("staging webhook endpoint", "production webhook endpoint")),
    ],
)  # fmt: skip
def test_compare_wordings_find_both_operands(query: str, operands: tuple[str, str]) -> None:
    plan = plan_query(query, "s", None)
    assert plan.intent == "compare" and plan.operands == operands
