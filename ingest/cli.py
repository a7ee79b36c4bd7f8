"""`kgs ingest` (filled in by the ingestion work)."""

from __future__ import annotations

import argparse

from service.settings import Settings


def run_ingest(args: argparse.Namespace, settings: Settings) -> int:
    raise NotImplementedError
