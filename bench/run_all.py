"""Runs every benchmark script in bench/ (each with its own bounded defaults), one after the
other, and prints one table: per script its status, time and closing figures.

    .venv/bin/python bench/run_all.py [--only NAME ...] [--skip NAME ...] [--timeout-s 3600]

A script's closing figures are the last block of its output (the lines after its last blank
line: the summary table each script ends with). Full outputs go to bench/out/run-all/.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "run-all"
DEFAULT_TIMEOUT_S = 3600.0  # per script
MAX_SUMMARY_LINES = 30  # per script in the table
# Run only when named with --only: the soak drives a service someone started, for 30 minutes
# (`make soak`); compare_runs reads two runs' outputs and measures nothing itself.
ON_REQUEST = ("soak", "compare_runs")


def scripts(only: list[str], skip: list[str]) -> list[Path]:
    found = sorted(p for p in BENCH.glob("*.py") if p.name != Path(__file__).name)
    names = {p.stem for p in found}
    for name in [*only, *skip]:
        if name not in names:
            have = ", ".join(sorted(names))
            raise SystemExit(f"no benchmark script named {name!r} (have: {have})")
    return [p for p in found if (p.stem in only if only else p.stem not in ON_REQUEST)
            and p.stem not in skip]  # fmt: skip


def closing_block(output: str) -> list[str]:
    lines = output.rstrip().splitlines()
    block: list[str] = []
    for line in reversed(lines):
        if not line.strip():
            break
        block.append(line.strip())
    return list(reversed(block))[-MAX_SUMMARY_LINES:]


def run(script: Path, timeout_s: float) -> tuple[str, float, list[str]]:
    OUT.mkdir(parents=True, exist_ok=True)
    log = OUT / f"{script.stem}.log"
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=timeout_s, check=False)  # fmt: skip
        output, status = done.stdout, "ok" if done.returncode == 0 else f"exit {done.returncode}"
        log.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr, encoding="utf-8")
    except subprocess.TimeoutExpired as expired:
        partial = expired.stdout or ""
        output = partial.decode() if isinstance(partial, bytes) else partial
        status = f"timeout after {timeout_s:.0f} s"
        log.write_text(output, encoding="utf-8")
    elapsed = time.monotonic() - started
    summary = closing_block(output) or [f"(no output; see {log})"]
    return status, elapsed, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", nargs="*", default=[], help="script names without .py")
    parser.add_argument("--skip", nargs="*", default=[])
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S)
    args = parser.parse_args()
    rows: list[tuple[str, str, str, str]] = []
    for script in scripts(args.only, args.skip):
        print(f"running {script.name} ...", flush=True)
        status, elapsed, summary = run(script, args.timeout_s)
        print(f"  {status} in {elapsed:.0f} s", flush=True)
        rows += [(script.stem if i == 0 else "", status if i == 0 else "",
                  f"{elapsed:.0f}" if i == 0 else "", line.replace("|", "/").strip("/ "))
                 for i, line in enumerate(summary)]  # fmt: skip
    print("\n| script | status | seconds | figures |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    failed = any(status and status != "ok" for _, status, _, _ in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
