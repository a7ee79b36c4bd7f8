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


def test_whitespace_is_normalised() -> None:
    assert plan_query("  what   is\nTLS ", "s").query == "what is TLS"
