"""`kgs health --scope S`: the scope's health report on the terminal, or as JSON
(service/health/report.py, docs/health.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import msgspec

from service.db import graph_session
from service.health.contradictions import Contradiction
from service.health.report import SECTIONS, health_report, health_section
from service.health.sections import SectionPage
from service.settings import Settings

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    health = sub.add_parser("health", help="what in a scope needs an editor: contradictions, ...")
    health.add_argument("--scope", required=True)
    health.add_argument("--section", choices=SECTIONS, help="one section only, one page of it")
    health.add_argument("--after", help="the cursor a previous page printed (with --section)")
    health.add_argument("--limit", type=int, help="findings per section (KGS_HEALTH_PAGE_SIZE)")
    health.add_argument("--today", help="judge validity on this date (YYYY-MM-DD)")
    health.add_argument("--json", action="store_true", help="print the report as JSON")
    health.set_defaults(run=_health)


def _health(args: argparse.Namespace, settings: Settings) -> int:
    if args.after and not args.section:
        print("kgs health: --after pages one section: name it with --section", file=sys.stderr)
        return 2
    with graph_session(settings, ensure_schema=False) as graph:
        if not graph.read("scope/readable_scopes", scopes=[args.scope], limit=1):
            print(f"kgs health: scope {args.scope!r} holds no documents", file=sys.stderr)
            return 1
        if args.section:
            pages = {args.section: health_section(
                graph, args.scope, args.section, settings.health, after=args.after,
                limit=args.limit, today=args.today,
            )}  # fmt: skip
            report: Any = pages[args.section]
        else:
            report = health_report(graph, args.scope, settings.health, limit=args.limit,
                                   today=args.today)  # fmt: skip
            pages = dict(report.pages())
    if args.json:
        print(msgspec.json.encode(report).decode())
        return 0
    for section, page in pages.items():
        _print_section(section, page)
    return 0


def _print_section(section: str, page: SectionPage[Any]) -> None:
    more = f" (more: --section {section} --after {page.next_after})" if page.next_after else ""
    print(f"{section}: {len(page.items)}{more}")
    for item in page.items:
        for line in _LINES.get(section, _plain)(item):
            print(f"  {line}")


def _contradiction(item: Contradiction) -> list[str]:
    conditions = f" [{', '.join(item.conditions)}]" if item.conditions else ""
    lines = [f"{item.subject}{conditions}: {' | '.join(item.values)} (cited {item.cited})"]
    lines += [f"  {s.path}:{s.line} v{s.version}  {s.quote}" for s in item.sides]
    return lines


def _plain(item: Any) -> list[str]:
    return [msgspec.json.encode(item).decode()]


_LINES: dict[str, Callable[[Any], list[str]]] = {"contradictions": _contradiction}
