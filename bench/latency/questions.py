"""The questions asked of a corpus: definitions, compares of document titles, how-to, why,
keyword and 'explain in detail' questions, seeded per scope."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from latency.corpus import STOP_WORDS

_VERBS = ("configure", "set up", "install", "clean", "measure", "check", "replace", "choose",
          "prepare", "test", "store", "repair")  # fmt: skip


def make_questions(
    titles: Sequence[str], words: Sequence[str], pool: Sequence[str], count: int, seed: int
) -> list[tuple[str, str]]:
    """(kind, question): definitions, compares of document titles, how-to, why, keyword
    questions and 'explain in detail' (deep) questions, interleaved."""
    rng = random.Random(seed)

    def t() -> str:
        return rng.choice(titles)

    def w() -> str:
        return rng.choice(words)

    def keywords() -> str:
        sentence = rng.choice(pool)
        found = [x.lower() for x in re.findall(r"\b[A-Za-z]{4,}\b", sentence)]
        found = [x for x in dict.fromkeys(found) if x not in STOP_WORDS]
        return " ".join(found[: rng.randint(3, 5)]) or f"{w()} {w()} {w()}"

    makers: list[tuple[str, Callable[[], str]]] = [
        ("definition", lambda: rng.choice(
            [f"What is {t()}?", f"Define {t().lower()}.", f"What are {t().lower()}?",
             f"What is the {w()} of {t()}?"])),
        ("compare", lambda: rng.choice(
            [f"Compare {t()} and {t()}.", f"What is the difference between {t()} and {t()}?",
             f"{t()} vs {t()}", f"How does {t()} differ from {t()}?"])),
        ("how_to", lambda: rng.choice(
            [f"How do I {rng.choice(_VERBS)} {t().lower()}?",
             f"What are the steps to {rng.choice(_VERBS)} the {w()} {w()}?",
             f"How to {rng.choice(_VERBS)} {w()} for {w()}?"])),
        ("why", lambda: rng.choice(
            [f"Why does {t().lower()} need {w()}?", f"Why is {w()} {w()} important?",
             f"What causes {w()} {w()} in {t()}?", f"What happens if the {w()} fails?"])),
        ("keywords", keywords),
        ("keywords", lambda: rng.choice(
            [f"{t()} {w()}", " ".join(rng.choice(pool).split()[:8]).rstrip(".,;:")])),
        ("deep", lambda: f"Explain {t()} in detail."),
    ]  # fmt: skip
    questions: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(questions) < count:
        kind, make = makers[len(questions) % len(makers)]
        text = make()
        if text not in seen:
            seen.add(text)
            questions.append((kind, text))
    return questions
