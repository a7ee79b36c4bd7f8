"""What the people who keep a knowledge base look at (docs/operations.md, "Operations API"):
answers by status over time, stage latencies, cited and never-cited documents, tickets, the
questions not answered (gaps) and the failed requests, read from the rollups the record writer
keeps (service/records/rollup.py)."""

from service.ops.failures import FailureReport, read_failures
from service.ops.gaps import GapReport, read_gaps
from service.ops.summary import Summary, read_summary
from service.ops.window import OpsRequestError, Window, window_of

__all__ = [
    "FailureReport",
    "GapReport",
    "OpsRequestError",
    "Summary",
    "Window",
    "read_failures",
    "read_gaps",
    "read_summary",
    "window_of",
]
