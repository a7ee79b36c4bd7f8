"""Words of a question that say what kind of answer it asks for, not what the answer is about."""

from __future__ import annotations

import re

__all__ = ["ANSWER_FRAMES"]

# An answer gives the motive, the origin or the parts without naming them: "What was the
# motive for the partition of Bengal?" is answered by what Curzon meant it to do, "Where did
# the expression 'cold feet' come from?" by who first wrote it, "What are the three
# components of the fire triangle?" by "heat, fuel, and an oxidizing agent". Such a word is no
# key term the evidence must repeat; the rest of the question still is.
ANSWER_FRAMES = frozenset(
    re.findall(
        r"\w+",
        "reason reasons purpose purposes motive motives cause causes origin origins idea "
        "method methods component components part parts element elements factor factors "
        "feature features type types kind kinds example examples effect effects role "
        "significance importance identify describe list name show come",
    )
)
