import pytest

from ingest.front_matter import FrontMatterError, parse_front_matter
from ingest.mermaid import parse_mermaid_edges
from service.text.relation_labels import compact_key, relation_for_label


def test_front_matter_fields_dates_and_relation_lines() -> None:
    text = (
        "id: waterglass\n"
        "aliases: [waterglass, water glass, 水玻璃]\n"
        "updated: 2026-07-01\n"
        "relations:\n"
        "  - {type: ANALOGOUS_TO, target: plastic-cup, confidence: 0.8}\n"
        "  - {type: precedes, target: silica-gel}\n"
        "  - {type: LOVES, target: x}\n"
        "colour: blue\n"
    )
    front, warnings = parse_front_matter(text, first_line=2)
    assert front.id == "waterglass"
    assert front.aliases == ("waterglass", "water glass", "水玻璃")
    assert front.updated == "2026-07-01"
    assert [(r.type, r.target, r.confidence, r.line) for r in front.relations] == [
        ("ANALOGOUS_TO", "plastic-cup", 0.8, 6),
        ("PRECEDES", "silica-gel", 0.8, 7),
    ]
    assert (8, "unknown relation type 'LOVES'; ignored") in warnings
    assert (9, "unknown front matter key 'colour' ignored") in warnings


def test_confidence_out_of_range_is_reported() -> None:
    _, warnings = parse_front_matter("relations:\n  - {type: IS_A, target: b, confidence: 3}\n", 2)
    assert warnings and warnings[0][0] == 3 and "confidence" in warnings[0][1]


def test_malformed_yaml_names_its_line() -> None:
    with pytest.raises(FrontMatterError) as error:
        parse_front_matter("id: x\ntitle: [unclosed\nkind: concept\n", first_line=2)
    assert error.value.line >= 3
    with pytest.raises(FrontMatterError):
        parse_front_matter("- just\n- a list\n", first_line=2)


def test_declared_knowledge_points() -> None:
    front, warnings = parse_front_matter(
        "knowledge_points:\n"
        "  - {id: ghost, title: Ghost neighbour, aliases: [spook]}\n"
        "  - {title: no id}\n",
        2,
    )
    assert [(k.id, k.title, k.aliases) for k in front.knowledge_points] == [
        ("ghost", "Ghost neighbour", ("spook",))
    ]
    assert any("needs an 'id'" in message for _, message in warnings)


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("contrasts with", "CONTRASTS_WITH"),
        ("CONTRASTS_WITH", "CONTRASTS_WITH"),
        ("Analogous to", "ANALOGOUS_TO"),
        ("leads to", "CAUSES"),
        ("is a", "IS_A"),
        ("frobnicates", None),
        ("", None),
    ],
)
def test_relation_labels_map_to_the_allowlist(label: str, expected: str | None) -> None:
    assert relation_for_label(label) == expected


def test_compact_keys_match_spaced_and_compact_forms() -> None:
    assert compact_key("Water glass") == compact_key("waterglass") == compact_key("WATER-GLASS")
    assert compact_key("水玻璃") == "水玻璃"


def test_mermaid_edges_shapes_labels_and_chains() -> None:
    edges = parse_mermaid_edges(
        "```mermaid\nflowchart LR\n"
        "  WG[Water glass] -->|analogous to| PC(Plastic cup)\n"
        "  A -- contrasts with --> B{{ignored}}\n"
        "  PC --> C[Cup washing] ==> D((Done))\n"
        "  %% a comment --> nothing\n"
        "```"
    )
    assert [(e.source, e.target, e.label) for e in edges][:1] == [
        ("Water glass", "Plastic cup", "analogous to")
    ]
    assert ("Plastic cup", "Cup washing", "") in [(e.source, e.target, e.label) for e in edges]
    assert ("Cup washing", "Done", "") in [(e.source, e.target, e.label) for e in edges]
    assert all("comment" not in e.source for e in edges)
