"""The credentials messages of docs/troubleshooting.md, produced against the session's real
Neo4j (one wrong password each; Neo4j locks a user out only after several in a row)."""

from __future__ import annotations

import time

import pytest

from service.cli import main
from service.db.local_server import LocalNeo4jError, LocalNeo4jServer
from service.db.selection import Connection
from service.settings import Settings
from tests.unit.test_troubleshooting import on_page

_LOCKOUT_S = 6  # Neo4j's auth lock time (5 s) after failed attempts, with a margin


def test_a_wrong_password_is_named_for_an_existing_server(
    connection: Connection, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NEO4J_URI", connection.uri)
    monkeypatch.setenv("NEO4J_USER", connection.user)
    monkeypatch.setenv("NEO4J_PASSWORD", "not-the-password")
    try:
        assert main(["cypher", "RETURN 1"]) != 0
        err = " ".join(capsys.readouterr().err.split())
        on_page(err, "The client is unauthorized due to authentication failure.")
        assert err.startswith("kgs: Neo4j:"), err
    finally:
        time.sleep(_LOCKOUT_S)  # the next test's right password must not meet the lock


def test_a_wrong_password_for_the_local_server_says_it_is_fixed_at_first_start(
    connection: Connection, settings: Settings
) -> None:
    if connection.route != "local":
        pytest.skip("the session's Neo4j is not the local server")
    server = LocalNeo4jServer(settings.local, user=connection.user, password="not-the-password")
    try:
        with pytest.raises(LocalNeo4jError) as raised:
            server.start()
        on_page(str(raised.value), "Neo4j runs but rejected the credentials of user 'neo4j': "
                                   "the password is fixed at first start")  # fmt: skip
    finally:
        time.sleep(_LOCKOUT_S)
