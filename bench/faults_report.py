"""Run the fault suite (tests/faults) once and print a table: test, outcome, seconds, and the
figures each test prints (attack success rates, kill points, torn reads, peak RSS).

    .venv/bin/python bench/faults_report.py [extra pytest args]

Exit status is pytest's. The run is bounded by the tests' own limits and by --timeout-s."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURE_PREFIXES = ("prompt injection", "kill during ingest", "concurrent ingests",
                   "upload/delete race", "pathological ingest", "service outage",
                   "llm provider", "rate limit", "transaction timeout", "hostile api",
                   "load")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout-s", type=float, default=900.0, help="bound on the whole run")
    args, extra = parser.parse_known_args()
    with tempfile.TemporaryDirectory(prefix="kgs-faults-") as folder:
        report = Path(folder, "faults.xml")
        command = [
            sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/faults",
            f"--junitxml={report}", "-o", "junit_logging=system-out", *extra,
        ]  # fmt: skip
        run = subprocess.run(command, cwd=ROOT, timeout=args.timeout_s, check=False)
        if not report.is_file():
            print("no test report was written", file=sys.stderr)
            return run.returncode or 1
        rows = _rows(report)
    width = max((len(r[0]) for r in rows), default=10)
    print(f"\n{'test':<{width}}  {'result':<7}  {'s':>6}  figures")
    for name, outcome, seconds, figures in rows:
        print(f"{name:<{width}}  {outcome:<7}  {seconds:>6.1f}  {figures}")
    return run.returncode


def _rows(report: Path) -> list[tuple[str, str, float, str]]:
    rows = []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = {"failure": "FAILED", "error": "ERROR", "skipped": "skipped"}[tag]
        out = case.findtext("system-out") or ""
        figures = "; ".join(line.strip() for line in out.splitlines()
                            if line.strip().startswith(FIGURE_PREFIXES))  # fmt: skip
        rows.append((f"{module}::{case.get('name')}", outcome, float(case.get("time", 0)),
                     figures))  # fmt: skip
    return rows


if __name__ == "__main__":
    sys.exit(main())
