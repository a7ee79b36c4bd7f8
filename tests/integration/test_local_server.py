"""Lifecycle of the project's own Neo4j server: a second instance in a temporary home on other
ports, so the shared test server is never disturbed. Needs Java and Maven (the local route)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from neo4j import GraphDatabase

from service.db.local_server import LocalNeo4jError, LocalNeo4jServer
from service.settings import Settings

pytestmark = pytest.mark.local_server

BOLT, HTTP = 17687, 17474


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4jServer]:
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.skip("the local Neo4j route needs Java and Maven")
    main = Settings.from_env().local
    home = tmp_path_factory.mktemp("kgs") / "neo4j"  # the layout KGS_HOME=<tmp> gives the CLI
    if (main.home / "lib" / ".pom.sha256").is_file():  # reuse the provisioned jars (hard links)
        shutil.copytree(main.home / "lib", home / "lib", copy_function=os.link)
    settings = msgspec.structs.replace(
        main, home=home, bolt_port=BOLT, http_port=HTTP, heap_max="512m", pagecache_size="64m"
    )
    instance = LocalNeo4jServer(settings, user="neo4j", password=None)
    yield instance
    instance.stop()


def _count(server: LocalNeo4jServer) -> int:
    with GraphDatabase.driver(server.bolt_uri, auth=("neo4j", server.password())) as driver:
        records, _, _ = driver.execute_query("MATCH (n:Persisted) RETURN count(n) AS n")
        return int(records[0]["n"])


def test_start_status_stop_and_data_survives(server: LocalNeo4jServer) -> None:
    assert not server.status().running
    status = server.start()
    assert status.running and status.version and status.version.startswith("5.26")
    assert status.bolt_uri == f"bolt://127.0.0.1:{BOLT}"
    assert (Path(status.home) / "password").stat().st_mode & 0o077 == 0  # owner-only secret

    again = server.start()  # a second start is a no-op
    assert again.pid == status.pid

    with GraphDatabase.driver(server.bolt_uri, auth=("neo4j", server.password())) as driver:
        driver.execute_query("CREATE (:Persisted {at: 1})")
    assert server.stop() is True
    assert not server.status().running
    assert server.stop() is False

    restarted = server.start()
    assert restarted.pid != status.pid
    assert _count(server) == 1


def test_browser_and_http_are_served(server: LocalNeo4jServer) -> None:
    import urllib.request

    server.start()
    with urllib.request.urlopen(f"{server.http_url}/", timeout=10) as response:
        assert b'"neo4j_version":"5.26' in response.read()
    with urllib.request.urlopen(f"{server.http_url}/browser/", timeout=10) as response:
        assert response.status == 200
        assert b"<html" in response.read().lower()


def test_stale_pid_after_kill_is_handled(server: LocalNeo4jServer) -> None:
    pid = server.start().pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    _reap_wait(pid)
    assert not server.status().running  # the pid file still names the dead process
    status = server.start()
    assert status.running and status.pid != pid
    assert _count(server) == 1  # the hard kill lost no committed data


def test_failed_start_names_the_log(server: LocalNeo4jServer) -> None:
    server.stop()
    bad = LocalNeo4jServer(
        msgspec.structs.replace(server.settings, heap_max="not-a-size", start_timeout_s=60),
        user="neo4j",
        password=None,
    )
    with pytest.raises(LocalNeo4jError) as error:
        bad.start()
    assert "heap" in str(error.value).lower() or "neo4j.log" in str(error.value)


def test_cli_status_exit_code(server: LocalNeo4jServer) -> None:
    env = {
        **os.environ,
        "KGS_HOME": str(server.home.parent),
        "KGS_NEO4J_BOLT_PORT": str(BOLT),
        "KGS_NEO4J_HTTP_PORT": str(HTTP),
    }
    command = [sys.executable, "-m", "service.cli", "neo4j", "status"]
    server.start()
    running = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert (
        running.returncode == 0 and "Neo4j 5.26" in running.stdout and " running" in running.stdout
    )
    server.stop()
    stopped = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert stopped.returncode == 3 and "not running" in stopped.stdout


def _reap_wait(pid: int) -> None:
    import time

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return
        time.sleep(0.1)


def test_password_starting_with_a_dash_is_set(server: LocalNeo4jServer, tmp_path: Path) -> None:
    """neo4j-admin once read such a password as an unknown option (a generated url-safe token
    starts with "-" one time in 64); the initial password must reach the auth file whatever
    its first character."""
    home = tmp_path / "neo4j"
    shutil.copytree(server.lib, home / "lib", copy_function=os.link)
    settings = msgspec.structs.replace(server.settings, home=home)
    dashed = LocalNeo4jServer(settings, user="neo4j", password="-starts-with-a-dash")
    dashed._write_config()
    dashed._set_initial_password()
    assert (dashed.data_dir / "dbms" / "auth.ini").is_file()
    generated = LocalNeo4jServer(settings, user="neo4j", password=None).password()
    assert generated[0].isalnum()


def test_vector_merge_factor_reaches_the_server_config(
    server: LocalNeo4jServer, tmp_path: Path
) -> None:
    settings = msgspec.structs.replace(server.settings, home=tmp_path, vector_merge_factor=3)
    LocalNeo4jServer(settings, user="neo4j", password="x")._write_config()
    conf = (tmp_path / "conf" / "neo4j.conf").read_text(encoding="utf-8").splitlines()
    assert "internal.dbms.index.vector.standard_merge_factor=3" in conf
    assert f"server.memory.pagecache.size={settings.pagecache_size}" in conf
