from service.pipeline.explain import cypher_literal
from service.pipeline.lucene import lucene_query
from service.pipeline.names import match_names
from service.pipeline.retrieval import fuse
from service.scope import scope_key

KPS = [
    {"id": "waterglass", "title": "Water glass", "aliases": ["waterglass", "水玻璃"],
     "documentId": "d1", "path": "w/waterglass.md"},
    {"id": "plastic-cup", "title": "Plastic cup", "aliases": [], "documentId": "d2",
     "path": "w/plastic-cup.md"},
    {"id": "glass", "title": "Glass", "aliases": [], "documentId": "d3", "path": "w/glass.md"},
]  # fmt: skip


def test_names_match_compact_spaced_and_chinese_forms() -> None:
    for query in ("what is waterglass?", "what is water glass?", "WATER-GLASS", "水玻璃是什么"):
        assert [m.id for m in match_names(query, (), KPS)] == ["waterglass"], query


def test_compare_operands_map_to_their_knowledge_points() -> None:
    matches = match_names(
        "compare water glass and plastic cup", ("water glass", "plastic cup"), KPS
    )
    assert {(m.id, m.operand) for m in matches} == {("waterglass", 0), ("plastic-cup", 1)}


def test_lucene_query_requires_the_scope_and_escapes_everything() -> None:
    query = lucene_query("s", ["a+b", 'x"y', "(z)", "OR"], ["water glass"])
    assert query.startswith(f"+scopeKey:{scope_key('s')} +(")
    assert "a\\+b" in query and 'x\\"y' in query and "\\(z\\)" in query
    assert '"water glass"' in query
    assert lucene_query("s", [], []).endswith("+(*:*)")


def test_rrf_fusion_orders_by_summed_reciprocal_ranks() -> None:
    fused = fuse({"fulltext": ["a", "b", "c"], "vector": ["b", "c", "a"]}, k=60)
    assert [item for item, _, _ in fused] == ["b", "a", "c"]
    assert fused[0][2] == {"fulltext": 2, "vector": 1}


def test_cypher_literals_replay_in_browser() -> None:
    assert cypher_literal("it's") == "'it\\'s'"
    assert cypher_literal([1, 2.5, None, True]) == "[1, 2.5, null, true]"
    assert cypher_literal({"a b": "x", "c": [1]}) == "{`a b`: 'x', c: [1]}"
