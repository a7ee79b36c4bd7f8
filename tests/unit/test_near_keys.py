import os
import random
import subprocess
import sys

from service.settings import project_root
from service.text.near_keys import (
    BANDS,
    KEY_VERSION,
    MIN_WORDS,
    jaccard,
    near_keys,
    shingles,
)

PARAGRAPH = (
    "Water glass is a concentrated solution of sodium silicate in water. Chemically it is a "
    "glass of sodium oxide and silicon dioxide that has been dissolved instead of shaped, which "
    "is where the name of this clear liquid comes from."
)
OTHER = (
    "Calibrate the prism alignment before every measurement series: loosen the two locking "
    "screws, turn the adjuster until the reference line sits centred in the eyepiece, tighten "
    "the screws again and record the reading together with the room temperature in the log."
)


def _replace_word(text: str, index: int, word: str) -> str:
    words = text.split()
    words[index] = word
    return " ".join(words)


def test_a_paragraph_has_one_versioned_key_per_band() -> None:
    keys = near_keys(PARAGRAPH)
    assert len(keys) == BANDS
    assert len(set(keys)) == BANDS
    assert [k.split(".")[:2] for k in keys] == [[KEY_VERSION, str(b)] for b in range(BANDS)]


def test_identical_and_normalised_texts_have_the_same_keys() -> None:
    assert near_keys(PARAGRAPH) == near_keys(PARAGRAPH)
    shouted = "  " + PARAGRAPH.upper().replace(" ", "\n  ") + "  "
    assert near_keys(shouted) == near_keys(PARAGRAPH)
    full_width = PARAGRAPH.replace("Water", "Ｗａｔｅｒ")  # NFKC folds full-width letters
    assert near_keys(full_width) == near_keys(PARAGRAPH)


def test_a_one_word_edit_of_a_forty_word_paragraph_shares_a_key() -> None:
    words = PARAGRAPH.split()
    assert len(words) == 40
    for index in (0, len(words) // 2, len(words) - 1):
        edited = _replace_word(PARAGRAPH, index, "cobalt")
        assert set(near_keys(edited)) & set(near_keys(PARAGRAPH)), index


def test_unrelated_paragraphs_share_no_key() -> None:
    assert not set(near_keys(PARAGRAPH)) & set(near_keys(OTHER))


def test_text_below_the_minimum_word_count_gets_no_keys() -> None:
    short = " ".join(PARAGRAPH.split()[: MIN_WORDS - 1])
    assert near_keys(short) == []
    assert near_keys("") == []
    assert len(near_keys(" ".join(PARAGRAPH.split()[:MIN_WORDS]))) == BANDS


def test_keys_are_the_same_in_another_process_with_another_hash_seed() -> None:
    code = (
        "from service.text.near_keys import near_keys; import sys; "
        "print(' '.join(near_keys(sys.argv[1])))"
    )
    for seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-c", code, PARAGRAPH], capture_output=True, text=True, check=True,
            cwd=project_root(), env={**os.environ, "PYTHONHASHSEED": seed},
        )  # fmt: skip
        assert run.stdout.split() == near_keys(PARAGRAPH)


def test_the_bands_find_most_near_duplicates_and_few_unrelated_pairs() -> None:
    """Over seeded random paragraphs: the banding's candidate rate at the targeted similarity,
    and at a low one (the odds are in the module's comment)."""
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(2_000)]
    found = unrelated = 0
    trials = 60
    for _ in range(trials):
        words = rng.choices(vocabulary, k=40)
        text = " ".join(words)
        edited = _replace_word(text, rng.randrange(3, 37), "zzz")  # 3 shingles changed
        assert jaccard(shingles(text), shingles(edited)) >= 0.8
        found += bool(set(near_keys(text)) & set(near_keys(edited)))
        other = " ".join(rng.choices(vocabulary, k=40))
        unrelated += bool(set(near_keys(text)) & set(near_keys(other)))
    assert found >= trials - 3
    assert unrelated == 0


def test_jaccard_of_shingle_sets() -> None:
    assert jaccard(shingles(PARAGRAPH), shingles(PARAGRAPH)) == 1.0
    assert jaccard(shingles(PARAGRAPH), shingles(OTHER)) < 0.1
    assert jaccard(frozenset(), frozenset()) == 0.0
    assert shingles("one two") == frozenset({"one two"})
    assert shingles("One, two; three four") == frozenset({"one two three", "two three four"})
