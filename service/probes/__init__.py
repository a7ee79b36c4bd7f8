"""Probe cases of `kgs probe`: the case file format and the checks against answer responses."""

from service.probes.cases import ProbeCase, ProbeFile, ProbeFileError, load_cases
from service.probes.checks import (
    check_case,
    check_paraphrase,
    format_result,
    paraphrase_summary_line,
    summary_line,
)

__all__ = [
    "ProbeCase",
    "ProbeFile",
    "ProbeFileError",
    "check_case",
    "check_paraphrase",
    "format_result",
    "load_cases",
    "paraphrase_summary_line",
    "summary_line",
]
