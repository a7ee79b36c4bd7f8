"""The answers two runs of a bench gave differently: which questions moved, and how.

    .venv/bin/python bench/compare_runs.py BEFORE AFTER [--suites NAME,...] [--status-only]
                                           [--width 160]

BEFORE and AFTER are the `bench/out` directories of two runs (one per work directory, or a
copy of one kept before a change). Every outcome file both hold is compared, under `unseen/`
(bench/unseen_pages.py) and `public/` (bench/public_sets.py), or only the named suites: per
changed answer its position (the public sets' fit half is the even ones), status before and
after, token F1 where the run scored it, and the question; then the status transitions and the
F1 moved per half. A run that did not ask the same questions in the same order is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from service.evaluation.compare import Change, RunMismatchError, changes, transitions

KINDS = ("unseen", "public")


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def suites(before: Path, after: Path, wanted: Sequence[str]) -> list[tuple[str, Path, Path]]:
    """(name, before file, after file) of every outcome file both runs hold."""
    found = []
    for kind in KINDS:
        for path in sorted((before / kind).glob("*.jsonl")):
            other = after / kind / path.name
            if other.exists() and (not wanted or path.stem in wanted):
                found.append((f"{kind}/{path.stem}", path, other))
    return found


def _f1(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def describe(change: Change, width: int) -> str:
    kind = {True: "A", False: "U", None: "?"}[change.answerable]
    scored = change.f1_before is not None or change.f1_after is not None
    f1 = f" F1 {_f1(change.f1_before)} -> {_f1(change.f1_after)}" if scored else ""
    line = f"  {change.position:>4} {change.id} {kind} {change.before} -> {change.after}{f1}"
    return f"{line} | {change.question}"[:width]


def f1_moved(found: Sequence[Change]) -> str:
    """The F1 sum moved over the changed answers, per half (even positions: fit)."""
    parts = []
    for name, half in (("fit", 0), ("report", 1)):
        moved = [
            c.f1_after - c.f1_before for c in found
            if c.position % 2 == half and c.f1_before is not None and c.f1_after is not None
        ]  # fmt: skip
        if moved:
            parts.append(f"{name} {sum(moved):+.2f} over {len(moved)}")
    return ", ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--suites", default="", help="outcome file names without .jsonl")
    parser.add_argument("--status-only", action="store_true", help="ignore text-only changes")
    parser.add_argument("--width", type=int, default=160, help="characters per answer line")
    args = parser.parse_args(argv)
    pairs = suites(args.before, args.after, [s for s in args.suites.split(",") if s])
    if not pairs:
        print(f"no outcome file is in both {args.before} and {args.after}", file=sys.stderr)
        return 2
    for name, before, after in pairs:
        try:
            found = changes(read_rows(before), read_rows(after), text=not args.status_only)
        except RunMismatchError as error:
            print(f"{name}: not comparable: {error}", file=sys.stderr)
            return 2
        moves = ", ".join(f"{a} -> {b} {n}" for (a, b), n in sorted(transitions(found).items()))
        moved = f1_moved(found)
        print(f"{name}: {len(found)} changed" + (f"; {moves}" if moves else "")
              + (f"; F1 {moved}" if moved else ""))  # fmt: skip
        for change in found:
            print(describe(change, args.width))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
