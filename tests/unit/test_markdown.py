from ingest.markdown import parse_markdown

SOURCE = """---
id: sample
title: Sample
---
# Sample document

Intro paragraph with a [link](other.md) and `code`.

## Section A

- first item
- second item
  continued

| a | b |
|---|---|
| 1 | 2 |

```python
print("hi")
```

```mermaid
flowchart LR
  A[Sample] -->|precedes| B[Other]
```

> quoted text
> more

### Deep heading

Deep paragraph.

Setext heading
--------------

Tail.
"""


def test_every_block_and_heading_reproduces_its_source_text() -> None:
    doc = parse_markdown(SOURCE)
    for item in (*doc.blocks, *doc.headings):
        assert SOURCE[item.start_offset : item.end_offset] == item.text


def test_kinds_order_lines_and_heading_paths() -> None:
    doc = parse_markdown(SOURCE)
    assert [b.kind for b in doc.blocks] == [
        "paragraph", "list", "table", "code", "mermaid", "quote", "paragraph", "paragraph",
    ]  # fmt: skip
    assert [b.ordinal for b in doc.blocks] == list(range(8))
    assert doc.title == "Sample document"
    assert doc.front_matter == "id: sample\ntitle: Sample\n"
    assert doc.front_matter_line == 2
    intro, items = doc.blocks[0], doc.blocks[1]
    assert (intro.start_line, intro.end_line) == (7, 7)
    assert (items.start_line, items.end_line) == (11, 13)
    assert intro.heading_path == ("Sample document",)
    assert items.heading_path == ("Sample document", "Section A")
    assert doc.blocks[6].heading_path == ("Sample document", "Section A", "Deep heading")
    # A level-2 setext heading closes the level-3 one and sits under the H1.
    assert doc.blocks[7].heading_path == ("Sample document", "Setext heading")
    assert [h.parent for h in doc.headings] == [-1, 0, 1, 0]


def test_links_belong_to_their_block() -> None:
    doc = parse_markdown(SOURCE)
    assert [(link.href, link.text, link.line) for link in doc.blocks[0].links] == [
        ("other.md", "link", 7)
    ]
    assert all(not b.links for b in doc.blocks[1:])


def test_crlf_source_keeps_exact_offsets() -> None:
    source = SOURCE.replace("\n", "\r\n")
    doc = parse_markdown(source)
    assert len(doc.blocks) == 8
    for item in (*doc.blocks, *doc.headings):
        assert source[item.start_offset : item.end_offset] == item.text
        assert not item.text.endswith("\r")


def test_oversized_block_is_split_at_line_ends_with_exact_offsets() -> None:
    lines = [f"line {i} " + "x" * 40 for i in range(100)]
    source = "# T\n\n" + "\n".join(lines) + "\n"
    doc = parse_markdown(source, max_block_chars=500)
    pieces = doc.blocks
    assert len(pieces) > 1
    assert all(len(b.text) <= 500 for b in pieces)
    for b in pieces:
        assert source[b.start_offset : b.end_offset] == b.text
    assert "".join(b.text + "\n" for b in pieces) == "\n".join(lines) + "\n"


def test_unclosed_front_matter_is_an_error_with_its_line() -> None:
    doc = parse_markdown("---\nid: x\n# Title\n")
    assert doc.front_matter_error is not None
    assert doc.front_matter_line == 1


def test_unicode_offsets_are_character_offsets() -> None:
    source = "# 水玻璃\n\n水玻璃是硅酸钠的水溶液。\n"
    doc = parse_markdown(source)
    assert doc.headings[0].text == "水玻璃"
    block = doc.blocks[0]
    assert source[block.start_offset : block.end_offset] == "水玻璃是硅酸钠的水溶液。"


def test_long_prose_becomes_passages_cut_between_sentences() -> None:
    sentences = [f"Step {i} turns the dial by {i} degrees." for i in range(40)]
    source = "# Dial\n\n" + " ".join(sentences) + "\n\n- a list item stays whole\n"
    doc = parse_markdown(source, passage_words=30)
    prose = [b for b in doc.blocks if b.kind == "paragraph"]
    assert len(prose) == 14  # 8 words a sentence, 3 sentences a passage (40 = 13 x 3 + 1)
    for block in prose:
        assert source[block.start_offset : block.end_offset] == block.text
        assert len(block.text.split()) <= 30
        assert block.text.startswith("Step") and block.text.endswith(".")
    assert " ".join(b.text for b in prose) == " ".join(sentences)
    assert [b.ordinal for b in doc.blocks] == list(range(len(doc.blocks)))
    assert doc.blocks[-1].kind == "list"


def test_passages_are_off_by_default_and_keep_a_long_sentence_whole() -> None:
    long = " ".join(["word"] * 50) + "."
    source = f"# T\n\n{long} Short one.\n"
    assert len(parse_markdown(source).blocks) == 1
    cut = parse_markdown(source, passage_words=20).blocks
    assert [b.text for b in cut] == [long, "Short one."]
