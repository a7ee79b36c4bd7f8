"""Tasks a question or a manual names, as word families: rinsing is a way of cleaning, checking
is not replacing. Read by the typed-value check (a frequency asked of one task is not given
for another) and by the sufficiency review (a procedure for one task does not answer how to
do another)."""

from __future__ import annotations

from collections.abc import Mapping

from service.answer.sufficiency.terms import has_term, stems

__all__ = ["FAMILIES", "TASKS", "tasks_named"]

# Upkeep tasks a manual gives intervals or procedures for, each with the verbs that name it.
# Nouns that are verbs too ("oil", "grease", "test") are left out: "the oil" names no task.
TASKS: Mapping[str, tuple[str, ...]] = {
    "clean": ("clean", "rinse", "wash", "wipe", "flush", "descale", "scrub", "dust"),
    "replace": ("replace", "change", "swap", "renew"),
    "check": ("check", "inspect", "examine"),
    "lubricate": ("lubricate", "lube"),
    "service": ("service", "overhaul"),
    "update": ("update", "upgrade"),
    "calibrate": ("calibrate", "recalibrate"),
    "charge": ("charge", "recharge"),
    "repair": ("repair", "fix", "mend", "correct", "correction"),
}
# Words that name one thing another way, for what a sentence names of the question: the upkeep
# tasks, a fault ("the projector is broken" / "report any AV fault"), and the events a when,
# who or where question asks of ("when was the wall built" / "constructed ... in 1961").
FAMILIES: Mapping[str, tuple[str, ...]] = {
    **TASKS,
    "fault": ("broken", "fault", "faulty", "defect", "defective", "damaged", "malfunction",
              "problem"),
    "build": ("build", "construct", "construction", "erect"),
    "invent": ("invent", "invention", "develop", "devise"),
    "win": ("win", "defeat", "beat", "victory", "victorious"),
    "write": ("write", "author"),
    "die": ("die", "death", "dead"),
    "born": ("born", "birth"),
    "release": ("release", "publish", "publication", "launch", "debut"),
    "discover": ("discover", "discovery"),
}  # fmt: skip


def tasks_named(text: str, families: Mapping[str, tuple[str, ...]] = TASKS) -> set[str]:
    """The families whose words the text names."""
    words = stems(text)
    return {
        name for name, members in families.items()
        if any(has_term(text, m, words) for m in members)
    }  # fmt: skip
