"""Run the fault suite (tests/faults) once and print a table: test, outcome, seconds, and the
figures each test prints (attack success rates, kill points, torn reads, peak RSS).

    .venv/bin/python bench/faults_report.py [--load] [extra pytest args]

--load also runs the long load test (bench/faults_load.py: 64 clients for 120 s over 5,000
documents, mixed reads and writes, every acknowledged write verified) and adds its targets as a
row; `make faults` passes it.

Exit status is pytest's. The run is bounded by the tests' own limits and by --timeout-s."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOAD_TIMEOUT_S = 2400.0  # a first run generates and embeds 5,000 documents
FIGURE_PREFIXES = ("prompt injection", "kill during ingest", "concurrent ingests",
                   "upload/delete race", "pathological ingest", "service outage",
                   "llm provider", "rate limit", "transaction timeout", "hostile api",
                   "load")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout-s", type=float, default=900.0, help="bound on the pytest run")
    parser.add_argument("--load", action="store_true", help="also run bench/faults_load.py")
    parser.add_argument("--load-timeout-s", type=float, default=LOAD_TIMEOUT_S)
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
    status = run.returncode
    if args.load:
        row = _load_row(args.load_timeout_s)
        rows.append(row)
        status = status or (0 if row[1] == "passed" else 1)
    width = max((len(r[0]) for r in rows), default=10)
    print(f"\n{'test':<{width}}  {'result':<7}  {'s':>6}  figures")
    for name, outcome, seconds, figures in rows:
        print(f"{name:<{width}}  {outcome:<7}  {seconds:>6.1f}  {figures}")
    return status


def _load_row(timeout_s: float) -> tuple[str, str, float, str]:
    """The load test as one row: passed when it exits 0; its figures are its target lines."""
    started = time.perf_counter()
    try:
        run = subprocess.run([sys.executable, "bench/faults_load.py"], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, timeout=timeout_s, check=False)  # fmt: skip
        output, code = run.stdout, run.returncode
    except subprocess.TimeoutExpired as error:
        output, code = str(error.stdout or ""), -1
    print(output)
    targets = [line for line in output.splitlines() if line.startswith("load | ")]
    header = [i for i, line in enumerate(targets) if line.startswith("load | target")]
    rows = targets[header[0] + 1 :] if header else []
    figures = "; ".join(" ".join(cell.strip() for cell in line.split("|")[1:4]) for line in rows)
    outcome = "passed" if code == 0 else "FAILED"
    return "faults_load.py::load", outcome, time.perf_counter() - started, figures


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
