"""The `kgs` command line. Each sub-command is a thin shell over the library; errors that a user
can fix are printed as one clear line on stderr with a non-zero exit status."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from service.db import graph_session
from service.db.graph import ReadOnlyViolation
from service.db.selection import local_server
from service.errors import KgsError
from service.evaluation import EvalFileError
from service.evaluation.run import Ask
from service.settings import Settings, SettingsError
from service.settings.reference import unknown_variables
from service.text.text_cache import configure_text_caches

__all__ = ["main"]

EXIT_FAILURE = 1
EXIT_USAGE = 2
# Errors with a message meant for the user; anything else is a bug and keeps its traceback.
_USER_ERRORS = (KgsError, FileNotFoundError)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("neo4j").setLevel(logging.WARNING)
    command: Callable[[argparse.Namespace, Settings], int] = args.run
    warn_unknown_variables(os.environ)
    try:
        settings = Settings.from_env()
        configure_text_caches(settings.text_cache)
        return command(args, settings)
    except _USER_ERRORS as error:
        print(f"kgs: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except _neo4j_errors() as error:
        print(f"kgs: Neo4j: {error}", file=sys.stderr)
        return EXIT_FAILURE


def warn_unknown_variables(env: Mapping[str, str]) -> None:
    """A `KGS_*` variable no setting reads is most likely a typo: say so, with the nearest name
    (docs/configuration.md lists every variable)."""
    for name, nearest in unknown_variables(env):
        hint = f"; did you mean {nearest}?" if nearest else ""
        print(f"kgs: warning: {name} is not a kgs setting and is ignored{hint}", file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kgs", description="Knowledge Graph Service")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)

    neo4j = sub.add_parser("neo4j", help="the local Neo4j server (no Docker needed)")
    neo4j.add_argument("action", choices=["start", "stop", "status"])
    neo4j.set_defaults(run=_neo4j)

    cypher = sub.add_parser(
        "cypher", help="run a read-only statement (a cypher/ name or Cypher text), rows as JSON"
    )
    cypher.add_argument("statement", help="e.g. admin/index_states, or 'MATCH (n) RETURN count(n)'")
    cypher.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE",
        help="a parameter; VALUE is parsed as JSON when it can be, else taken as a string",
    )  # fmt: skip
    cypher.set_defaults(run=_cypher)

    ingest = sub.add_parser("ingest", help="ingest a Markdown knowledge base into Neo4j")
    ingest.add_argument("path", help="a knowledge base directory (each top folder a scope) or file")
    ingest.add_argument("--scope", help="put everything under PATH into this one scope")
    ingest.add_argument(
        "--prune", action="store_true", help="withdraw documents whose file is gone"
    )
    ingest.add_argument("--dry-run", action="store_true", help="parse and report, write nothing")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bars")
    ingest.set_defaults(run=_ingest)

    for name, helptext in (
        ("ask", "answer a question from one scope (the best one when none is given)"),
        ("explain", "print each stage's Cypher for a question"),
    ):
        ask = sub.add_parser(name, help=helptext)
        ask.add_argument("question")
        ask.add_argument(
            "--scope", help="the scope (knowledge base folder); default: the best of every scope "
            "holding documents, at most KGS_API_MAX_QUESTION_SCOPES of them",
        )  # fmt: skip
        ask.add_argument("--depth", choices=["normal", "deep"])
        ask.add_argument("--top-k", type=int, dest="top_k")
        if name == "ask":
            ask.add_argument("--json", action="store_true", help="the whole response with trace")
            ask.add_argument(
                "--generate", action=argparse.BooleanOptionalAction, default=None,
                help="the configured provider (KGS_LLM_BASE_URL) writes the answer; default: "
                "KGS_GENERATION_DEFAULT",
            )  # fmt: skip
            ask.add_argument(
                "--stream", action="store_true",
                help="print written sentences as they come (implies --generate)",
            )  # fmt: skip
        ask.set_defaults(run=_ask if name == "ask" else _explain)

    probe = sub.add_parser("probe", help="run probe cases against the pipeline")
    probe.add_argument("cases", help="a probe case file (YAML)")
    probe.add_argument("--kb", help="ingest this knowledge base first (default: knowledge_base/)")
    probe.set_defaults(run=_probe)

    evaluate = sub.add_parser(
        "eval", help="answer a question file as a client would and print recall, refusals, F1"
    )
    evaluate.add_argument("questions", help="JSON Lines: question, answerable, answers, gold")
    evaluate.add_argument("--scope", help="the scope to ask (default: as `kgs ask`)")
    evaluate.add_argument("--top-k", type=int, default=10, dest="top_k")
    evaluate.add_argument("--url", help="ask a running service (e.g. http://127.0.0.1:8000)")
    evaluate.add_argument("--key", help="the API key for --url (default: KGS_API_KEY)")
    evaluate.add_argument("--limit", type=int, help="only the first N questions")
    evaluate.add_argument("--out", help="write each question's outcome here (JSON Lines)")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")
    evaluate.add_argument(
        "--gate", help="TOML thresholds ([min], [max]); exit 1 when one is missed"
    )
    evaluate.set_defaults(run=_eval)

    from ingest import embeddings_cli, facts_cli, history_cli

    history_cli.add_commands(sub)
    embeddings_cli.add_commands(sub, switch_run=_switch)
    facts_cli.add_commands(sub)
    from service.health import cli as health_cli

    health_cli.add_commands(sub)

    serve = sub.add_parser("serve", help="serve the REST API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(run=_serve)

    mcp = sub.add_parser("mcp", help="serve the MCP tools over stdio (for an AI assistant)")
    mcp.set_defaults(run=_mcp)
    return parser


def _neo4j(args: argparse.Namespace, settings: Settings) -> int:
    server = local_server(settings)
    if args.action == "start":
        status = server.start()
        _print_status(status)
        return 0
    if args.action == "stop":
        print("stopped" if server.stop() else "not running")
        return 0
    status = server.status()
    _print_status(status)
    return 0 if status.running else 3  # 3: "not running", as LSB status commands do


def _print_status(status: Any) -> None:
    fields = msgspec.structs.asdict(status)
    state = "running" if fields.pop("running") else "not running"
    print(f"Neo4j {fields.pop('version') or ''} {state}".replace("  ", " "))
    for key, value in fields.items():
        if value is not None:
            print(f"  {key}: {value}")


def _cypher(args: argparse.Namespace, settings: Settings) -> int:
    params = dict(_parse_param(p) for p in args.param)
    with graph_session(settings, ensure_schema=False) as graph:
        if args.statement in graph.registry:
            stmt = graph.registry.get(args.statement)
            if stmt.mode != "read":
                raise ReadOnlyViolation(f"refused: {stmt.name} is a '{stmt.mode}' statement")
            missing = [p for p in stmt.parameters if p not in params]
            if missing:
                print(f"kgs: missing --param for: {', '.join(missing)}", file=sys.stderr)
                return EXIT_USAGE
            rows = graph.read_text(stmt.text, params)
        else:
            rows = graph.read_text(args.statement, params)
    print(json.dumps(rows, indent=2, ensure_ascii=False, default=str))
    return 0


def _parse_param(raw: str) -> tuple[str, Any]:
    name, sep, value = raw.partition("=")
    if not sep or not name.isidentifier():
        raise SettingsError(f"--param must look like NAME=VALUE, got {raw!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    from ingest.cli import run_ingest  # the embedding stack loads only when ingesting

    return run_ingest(args, settings)


def _answer(
    args: argparse.Namespace, settings: Settings, on_sentence: Any = None
) -> tuple[dict[str, Any], Any]:
    from ingest.embeddings import ModelRoster
    from service.answer.generation import generation_client
    from service.question.runner import answer_question, stage_settings
    from service.question.scope_choice import answer_best_scope, scopes_to_search

    embedder = ModelRoster(settings.embedding.for_queries()) if settings.embedding.enabled else None
    asked = getattr(args, "generate", None)
    wanted = getattr(args, "stream", False) or (
        settings.generation.default if asked is None else asked
    )
    generator = generation_client(settings.llm, settings.generation) if wanted else None
    written = {"generator": generator, "on_sentence": on_sentence}
    with graph_session(settings, ensure_schema=False) as graph, contextlib.ExitStack() as stack:
        if generator is not None:
            stack.callback(generator.close)
        if args.scope is None:  # the command line reads every scope
            scopes = scopes_to_search(graph, None, settings.api.max_question_scopes)
            response = answer_best_scope(
                graph, embedder, args.question, scopes=scopes, depth=args.depth,
                top_k=args.top_k, candidates=settings.api.question_scope_candidates,
                **written, **stage_settings(settings),
            )  # fmt: skip
        else:
            response = answer_question(graph, embedder, args.question, scope=args.scope,
                                       depth=args.depth, top_k=args.top_k, **written,
                                       **stage_settings(settings))  # fmt: skip
        return response, graph.registry


def _ask(args: argparse.Namespace, settings: Settings) -> int:
    if args.stream and not settings.llm.enabled:
        print("kgs ask --stream needs a provider: set KGS_LLM_BASE_URL", file=sys.stderr)
        return 2
    streamed: list[str] = []

    def on_sentence(text: str) -> None:
        streamed.append(text)
        print(text, flush=True)

    response, _ = _answer(args, settings, on_sentence if args.stream else None)
    if args.json:
        print(json.dumps(response, indent=2, ensure_ascii=False, default=str))
        return 0
    if streamed:
        revised = response["answer"] != " ".join(streamed)
        print("-- reviewed answer" + (" (changed from what was streamed):" if revised else ":"))
    print(f"[{response['status']}] {response['answer']}")
    if args.scope is None:
        choice = response["trace"]["scopeChoice"]
        print(f"  scope {choice['chosen']!r}: {choice['reason']}")
    for number, citation in enumerate(response["citations"], start=1):
        heading = " > ".join(citation["headingPath"])
        path, page, anchor = citation["path"], citation.get("page"), citation.get("anchor")
        where = (f"{path}, page {page}" if page else f"{path}#{anchor}" if anchor
                 else f"{path}:{citation['startLine']}")  # fmt: skip
        print(f"  [{number}] {where} ({heading})")
    return 0


def _explain(args: argparse.Namespace, settings: Settings) -> int:
    from service.pipeline.explain import render_explain

    response, registry = _answer(args, settings)
    print(render_explain(response["trace"]["cypher"], registry), end="")
    return 0


def _probe(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from ingest.embeddings import ModelRoster
    from service.probes.runner import run_probes
    from service.settings import project_root

    embedder = ModelRoster(settings.embedding.for_queries()) if settings.embedding.enabled else None
    kb = Path(args.kb) if args.kb else project_root() / "knowledge_base"
    with graph_session(settings) as graph:
        _, failed = run_probes(graph, embedder, Path(args.cases), kb, settings)
    return 1 if failed else 0


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from service.evaluation import http_asker, read_questions, report, run_questions
    from service.evaluation.gates import check_gates, read_gates
    from service.evaluation.report import print_report, write_outcomes

    if args.top_k < 1:
        raise EvalFileError("--top-k must be at least 1")
    gates = read_gates(Path(args.gate)) if args.gate else []  # a bad gate file costs no run
    questions = read_questions(Path(args.questions), limit=args.limit)
    if args.url:
        outcomes = list(run_questions(
            http_asker(args.url, args.key or os.environ.get("KGS_API_KEY")),
            questions, args.scope, args.top_k,
        ))  # fmt: skip
    else:
        with _in_process_asker(settings) as ask:
            outcomes = list(run_questions(ask, questions, args.scope, args.top_k))
    if args.out:
        write_outcomes(Path(args.out), outcomes)
    measured = report(outcomes)
    print_report(measured, as_json=args.json)
    verdicts = check_gates(measured, gates)
    for verdict in verdicts:
        print(("gate " if verdict.passed else "GATE FAILED ") + verdict.describe(),
              file=sys.stdout if verdict.passed else sys.stderr)  # fmt: skip
    return EXIT_FAILURE if any(not v.passed for v in verdicts) else 0


def _switch(args: argparse.Namespace, settings: Settings) -> int:
    """`kgs embeddings switch`, gated when --gate and --questions are given."""
    from pathlib import Path

    from ingest.embeddings import ModelRoster
    from ingest.embeddings_cli import run_switch
    from service.evaluation import read_questions
    from service.evaluation.gates import read_gates
    from service.evaluation.switch_gate import gated_switch

    if not args.gate and not args.questions:
        if args.force:
            raise EvalFileError("--force overrides a gate: give --gate and --questions")
        return run_switch(args, settings)
    if not (args.gate and args.questions) or args.no_activate:
        raise EvalFileError("a gated switch needs --gate and --questions, without --no-activate")
    if args.top_k < 1:
        raise EvalFileError("--top-k must be at least 1")
    gates = read_gates(Path(args.gate))  # a bad file stops the switch before any work
    questions = read_questions(Path(args.questions))
    with _in_process_asker(settings) as ask, graph_session(settings) as graph:
        gated = gated_switch(
            graph, ModelRoster(settings.embedding), args.model, settings.embedding,
            questions=questions, gates=gates, ask=ask, top_k=args.top_k, force=args.force,
            progress=lambda message: print(message, file=sys.stderr, flush=True),
        )  # fmt: skip
    for verdict in gated.verdicts:
        print(("gate " if verdict.passed else "GATE FAILED ") + verdict.describe(),
              file=sys.stdout if verdict.passed else sys.stderr)  # fmt: skip
    if not gated.activated:
        print(f"{gated.built.model} built but NOT activated: a quality gate was missed (the "
              "change feed has a switchRefused event); --force activates it anyway",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILURE
    print(
        f"{gated.built.model} activated"
        + (" (forced past a missed gate)" if gated.forced else "")
        + f"; {gated.previous} is standby"
    )
    return 0


@contextmanager
def _in_process_asker(settings: Settings) -> Iterator[Ask]:
    """The answer path of `kgs ask`, with one model and one driver for every question."""
    from ingest.embeddings import ModelRoster
    from service.question.runner import answer_question, stage_settings
    from service.question.scope_choice import answer_best_scope, scopes_to_search

    embedder = ModelRoster(settings.embedding.for_queries()) if settings.embedding.enabled else None
    with graph_session(settings, ensure_schema=False) as graph:

        def ask(question: str, scope: str | None, top_k: int) -> dict[str, Any]:
            if scope is None:
                scopes = scopes_to_search(graph, None, settings.api.max_question_scopes)
                return answer_best_scope(
                    graph, embedder, question, scopes=scopes, top_k=top_k,
                    candidates=settings.api.question_scope_candidates,
                    **stage_settings(settings),
                )  # fmt: skip
            return answer_question(graph, embedder, question, scope=scope, top_k=top_k,
                                   **stage_settings(settings))  # fmt: skip

        yield ask


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from service.api import create_app
    from service.api.logs import configure_json_logging

    configure_json_logging(logging.DEBUG if args.verbose else logging.INFO)
    if settings.api.malloc_arenas and not limit_malloc_arenas(settings.api.malloc_arenas):
        logging.getLogger("kgs.api").warning(
            "KGS_API_MALLOC_ARENAS=%d not applied: the C library is not glibc",
            settings.api.malloc_arenas,
        )
    threshold = settings.api.malloc_mmap_threshold_bytes
    if threshold and not fix_malloc_mmap_threshold(threshold):
        logging.getLogger("kgs.api").warning(
            "KGS_API_MALLOC_MMAP_THRESHOLD_BYTES=%d not applied: the C library is not glibc",
            threshold,
        )
    cap_onednn_kernels(settings.api.onednn_primitive_cache)
    uvicorn.run(
        create_app(settings), host=args.host, port=args.port,
        log_config=None,  # keep the JSON logs; the app logs each request with its trace id
        access_log=False,
        timeout_graceful_shutdown=int(settings.api.shutdown_grace_s),
    )  # fmt: skip
    return 0


def _mcp(args: argparse.Namespace, settings: Settings) -> int:
    from service.api.mcp.stdio import serve_stdio

    serve_stdio(settings)
    return 0


def limit_malloc_arenas(count: int) -> bool:
    """Cap glibc's heap arenas (mallopt M_ARENA_MAX) before the server starts its threads, and
    in the answer worker processes it starts (MALLOC_ARENA_MAX, read by glibc at their start);
    False where the C library is not glibc (the setting then does nothing)."""
    os.environ["MALLOC_ARENA_MAX"] = str(count)
    return _mallopt(-8, count)  # M_ARENA_MAX, from glibc's malloc.h


def fix_malloc_mmap_threshold(size: int) -> bool:
    """Serve allocations of `size` bytes or more from their own mappings, returned to the system
    when freed (mallopt M_MMAP_THRESHOLD; MALLOC_MMAP_THRESHOLD_ for the worker processes). A
    fixed threshold also stops glibc from raising it after each large free: the embedding
    model's buffers, of a new size for each batch, then stayed in the heap and RSS grew about
    12 MiB a minute under the soak (docs/operations.md, "Where memory goes")."""
    os.environ["MALLOC_MMAP_THRESHOLD_"] = str(size)
    return _mallopt(-3, size)  # M_MMAP_THRESHOLD


def cap_onednn_kernels(capacity: int) -> None:
    """Keep at most `capacity` compiled oneDNN kernels (ONEDNN_PRIMITIVE_CACHE_CAPACITY, read
    when the model first runs, so before it loads); 0, or a value the environment already sets,
    leaves it alone. The model compiles a kernel per new input length: oneDNN's 1,024 let RSS
    grow for the whole 30-minute soak."""
    if capacity:
        os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", str(capacity))


def _mallopt(parameter: int, value: int) -> bool:
    """glibc's mallopt; False where the C library is not glibc."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        libc = None
    if libc is None or not hasattr(libc, "mallopt"):
        return False
    return bool(libc.mallopt(parameter, value))


def _neo4j_errors() -> tuple[type[BaseException], ...]:
    from neo4j.exceptions import DriverError, Neo4jError

    return (DriverError, Neo4jError)


if __name__ == "__main__":
    sys.exit(main())
