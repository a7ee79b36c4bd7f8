"""Which Neo4j to use. One code path decides, in this order, and logs its choice:

1. `NEO4J_URI` (an existing server, with NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE);
2. a reachable Docker engine: `docker compose` (docker-compose.yml) for the CLI and the service,
   testcontainers for the test suite;
3. the local server that the project provisions from Maven Central (`kgs neo4j start`).
"""

from __future__ import annotations

import enum
import logging
import os
import shutil
import subprocess
from collections.abc import Callable
from typing import Literal

import msgspec

from service.db.local_server import LocalNeo4jServer
from service.settings import Settings, project_root

__all__ = ["Connection", "Route", "choose_route", "connect", "local_server"]

log = logging.getLogger(__name__)

DOCKER_IMAGE = "neo4j:5.26-community"
_DOCKER_PROBE_TIMEOUT_S = 5.0
_COMPOSE_TIMEOUT_S = 300.0


class Route(enum.StrEnum):
    ENV = "env"
    DOCKER = "docker"
    LOCAL = "local"


class Connection(msgspec.Struct, frozen=True, kw_only=True):
    route: Route
    uri: str
    user: str
    password: str
    database: str


def local_server(settings: Settings) -> LocalNeo4jServer:
    return LocalNeo4jServer(
        settings.local, user=settings.neo4j.user, password=settings.neo4j.password
    )


def choose_route(settings: Settings) -> Route:
    if settings.neo4j.uri:
        route = Route.ENV
    elif settings.use_docker and _docker_engine_reachable():
        route = Route.DOCKER
    else:
        route = Route.LOCAL
    log.info("Neo4j route: %s", route)
    return route


def connect(
    settings: Settings, *, purpose: Literal["service", "tests"] = "service"
) -> tuple[Connection, Callable[[], None]]:
    """Make the chosen database available; returns how to reach it and how to release it.

    Releasing never stops a shared server (local or compose): only a test container is removed.
    """
    route = choose_route(settings)
    n = settings.neo4j
    if route is Route.ENV:
        assert n.uri is not None
        return Connection(
            route=route, uri=n.uri, user=n.user, password=n.password or "", database=n.database
        ), _nothing
    server = local_server(settings)  # also owns the generated password, for every route
    if route is Route.DOCKER and purpose == "tests":
        return _testcontainer(settings, server.password())
    if route is Route.DOCKER:
        _compose_up(server.password())
        uri = "bolt://127.0.0.1:7687"
    else:
        uri = server.start().bolt_uri
    return Connection(
        route=route, uri=uri, user=n.user, password=server.password(), database=n.database
    ), _nothing


def _nothing() -> None:
    return None


def _docker_engine_reachable() -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    try:
        probe = subprocess.run(
            [docker, "info", "--format", "{{.ServerVersion}}"],
            capture_output=True,
            timeout=_DOCKER_PROBE_TIMEOUT_S,
            check=False,
        )
    except (subprocess.TimeoutExpired, OSError):
        return False
    return probe.returncode == 0


def _compose_up(password: str) -> None:
    env = {**os.environ, "NEO4J_PASSWORD": password}
    subprocess.run(
        ["docker", "compose", "up", "-d", "--wait", "neo4j"],
        cwd=project_root(),
        env=env,
        check=True,
        timeout=_COMPOSE_TIMEOUT_S,
    )


def _testcontainer(settings: Settings, password: str) -> tuple[Connection, Callable[[], None]]:
    from testcontainers.neo4j import Neo4jContainer  # imported only where Docker runs

    container = Neo4jContainer(DOCKER_IMAGE, password=password)
    container.start()
    connection = Connection(
        route=Route.DOCKER,
        uri=container.get_connection_url(),
        user="neo4j",
        password=password,
        database=settings.neo4j.database,
    )
    return connection, container.stop
