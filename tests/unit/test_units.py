from ingest.problems import Problem
from ingest.units import KnowledgePointIndex, ParsedSource, build_unit, read_source

A = """---
id: alpha
title: Alpha
aliases: [first letter]
relations:
  - {type: CONTRASTS_WITH, target: beta, confidence: 0.9}
  - {type: PRECEDES, target: nowhere}
---
# Alpha

Alpha is the first. See [Beta](beta.md) and [the web](https://example.org/x.md).

## Usage

Shared sentence.

```mermaid
flowchart LR
  A[Alpha] -->|analogous to| B[Beta]
  A -->|wobbles| B
  A -->|causes| G[Gamma ray]
```

## Other

Shared sentence.
"""

B = "# Beta\n\nBeta is second.\n"


def _parse(path: str, text: str) -> ParsedSource:
    parsed = read_source("s", path, text, max_block_chars=10_000)
    assert not isinstance(parsed, Problem)
    return parsed


def _unit(text: str = A):  # type: ignore[no-untyped-def]
    a, b = _parse("s/alpha.md", text), _parse("s/beta.md", B)
    index = KnowledgePointIndex(
        [(kp.id, kp.title, kp.aliases) for p in (a, b) for kp in p.knowledge_points],
        {a.path: a.primary_id, b.path: b.primary_id},
    )
    return build_unit(a, index, model="m")


def test_default_knowledge_point_from_path_and_h1() -> None:
    parsed = _parse("s/beta.md", B)
    kp = parsed.knowledge_points[0]
    assert (kp.id, kp.title, kp.link) == ("beta", "Beta", "DESCRIBED_IN")
    assert kp.summary == "Beta is second."


def test_relations_from_all_three_sources_with_provenance() -> None:
    unit = _unit()
    found = {(r.type, r.source, r.target, r.provenance) for r in unit.relations}
    assert found == {
        ("CONTRASTS_WITH", "alpha", "beta", "front_matter"),
        ("ANALOGOUS_TO", "alpha", "beta", "mermaid"),
        ("REFERENCES", "alpha", "beta", "link"),
    }
    by_provenance = {r.provenance: r for r in unit.relations}
    assert by_provenance["front_matter"].confidence == 0.9
    assert by_provenance["front_matter"].sourceLine == 6
    mermaid_paragraph = next(p for p in unit.paragraphs if p["kind"] == "mermaid")
    assert by_provenance["mermaid"].sourceParagraphId == mermaid_paragraph["id"]
    assert by_provenance["link"].sourceParagraphId == unit.paragraphs[0]["id"]


def test_unresolvable_parts_are_warnings_with_lines() -> None:
    messages = {(p.line, p.message) for p in _unit().problems}
    assert (7, "relation target 'nowhere' is unknown in scope 's'") in messages
    assert (20, "Mermaid edge label 'wobbles' names no relation type") in messages
    assert (21, "Mermaid node 'Gamma ray' matches no knowledge point") in messages


def test_ids_are_stable_and_local_to_the_edit() -> None:
    first, again = _unit(), _unit()
    assert [p["id"] for p in first.paragraphs] == [p["id"] for p in again.paragraphs]
    assert first.unit_hash == again.unit_hash
    edited = _unit(A.replace("## Usage\n\n", "## Usage\n\nA new paragraph.\n\n"))
    old_ids, new_ids = [p["id"] for p in first.paragraphs], [p["id"] for p in edited.paragraphs]
    assert len(new_ids) == len(old_ids) + 1
    assert set(old_ids) <= set(new_ids)  # every old paragraph kept its id
    assert edited.unit_hash != first.unit_hash


def test_repeated_text_in_different_sections_gets_different_ids() -> None:
    shared = [p for p in _unit().paragraphs if p["text"] == "Shared sentence."]
    assert len(shared) == 2
    assert shared[0]["id"] != shared[1]["id"]
    assert shared[0]["headingPath"] != shared[1]["headingPath"]


def test_malformed_front_matter_is_a_file_error() -> None:
    result = read_source(
        "s", "s/bad.md", "---\nid: x\ntitle: a: b\n---\n# Bad\n", max_block_chars=100
    )
    assert isinstance(result, Problem)
    assert result.severity == "error" and result.line == 3
    assert "malformed YAML" in result.message
