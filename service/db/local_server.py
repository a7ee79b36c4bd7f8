"""The Neo4j server the project provisions and runs itself, for machines without Docker.

Route: Maven resolves the pinned community server (plus Neo4j Browser) from Maven Central into
`<home>/lib`; Neo4j's own launcher (`org.neo4j.server.startup.Neo4jCommand`, the class behind
`bin/neo4j`) then starts, stops and reports the server from a regular NEO4J_HOME with
`conf/neo4j.conf`, `data/`, `logs/` and `run/neo4j.pid`. It is a real server: Bolt, HTTP, the
query API and Browser, configured through neo4j.conf.

The password: NEO4J_PASSWORD if set, else one generated at first start and kept in
`<home>/password` (mode 600, git-ignored). It is set before the first start with
`neo4j-admin dbms set-initial-password`, as Neo4j requires.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import msgspec
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable

from service.errors import KgsError
from service.settings import LocalServerSettings

__all__ = ["LocalNeo4jError", "LocalNeo4jServer", "ServerStatus"]

log = logging.getLogger(__name__)

POM = Path(__file__).parent / "neo4j-local" / "pom.xml"
_LAUNCHER = "org.neo4j.server.startup.Neo4jCommand"
_ADMIN = "org.neo4j.cli.AdminTool"
_POLL_INTERVAL_S = 0.5
_JAVA_MIN_MAJOR = 17

# JVM flags from the neo4j.conf that ships with the Neo4j distribution (performance and safety).
_JVM_ADDITIONAL = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
)


class LocalNeo4jError(KgsError, RuntimeError):
    """The local server could not be provisioned, started or stopped; the message says why."""


class ServerStatus(msgspec.Struct, frozen=True, kw_only=True):
    running: bool
    pid: int | None
    version: str | None
    bolt_uri: str
    http_url: str
    browser_url: str
    home: str
    data_dir: str
    logs_dir: str
    user: str
    password_file: str | None


class LocalNeo4jServer:
    def __init__(self, settings: LocalServerSettings, *, user: str, password: str | None) -> None:
        self.settings = settings
        self.user = user
        self._password = password
        home = settings.home
        self.home = home
        self.lib = home / "lib"
        self.conf_dir = home / "conf"
        self.data_dir = home / "data"
        self.logs_dir = home / "logs"
        self.run_dir = home / "run"
        self.pid_file = self.run_dir / "neo4j.pid"
        self.password_file = home / "password"

    # -- addresses ---------------------------------------------------------------------------

    @property
    def bolt_uri(self) -> str:
        return f"bolt://{self.settings.listen_address}:{self.settings.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.settings.listen_address}:{self.settings.http_port}"

    @property
    def guide_hosts(self) -> tuple[str, ...]:
        """Hosts Neo4j Browser may fetch guides from (`:play URL`): Neo4j's own guide site and
        this machine, where `kgs serve` offers GET /browser-guide (service/api/browser_guide.py).
        Browser compares a URL's host name with each entry, ignoring the port."""
        hosts = ["guides.neo4j.com", "localhost", "127.0.0.1"]
        address = self.settings.listen_address
        if address not in (*hosts, "0.0.0.0", "::", ""):
            hosts.append(address)
        return tuple(hosts)

    @property
    def log_file(self) -> Path:
        return self.logs_dir / "neo4j.log"

    # -- lifecycle ---------------------------------------------------------------------------

    def password(self) -> str:
        """NEO4J_PASSWORD, else the generated one (created on first use)."""
        if self._password:
            return self._password
        if self.password_file.is_file():
            return self.password_file.read_text(encoding="utf-8").strip()
        self.home.mkdir(parents=True, exist_ok=True)
        # Hex, not url-safe base64: a generated password must never start with "-".
        generated = secrets.token_hex(18)
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(generated + "\n")
        return generated

    def start(self) -> ServerStatus:
        """Start the server and wait until Bolt answers; a no-op when it already runs."""
        pid = self._live_pid()
        if pid is not None:
            self._wait_for_bolt(pid)
            log.info("local Neo4j already running (pid %s)", pid)
            return self.status()
        self._require_free_ports()
        self.provision()
        self._write_config()
        self._set_initial_password()
        started = time.monotonic()
        result = self._launcher("start", timeout_s=self.settings.start_timeout_s)
        if result.returncode != 0:
            raise LocalNeo4jError(
                f"Neo4j launcher failed (exit {result.returncode}): {result.stdout.strip()[-800:]}"
                f"\nsee {self.log_file}"
            )
        pid = self._live_pid()
        if pid is None:
            raise LocalNeo4jError(f"Neo4j exited right after start; see {self.log_file}")
        self._wait_for_bolt(pid)
        log.info("local Neo4j started in %.1f s (pid %s)", time.monotonic() - started, pid)
        return self.status()

    def stop(self) -> bool:
        """Stop the server; returns False when it was not running."""
        pid = self._live_pid()
        if pid is None:
            return False
        result = self._launcher("stop", timeout_s=self.settings.stop_timeout_s + 10)
        if self._live_pid() is not None:
            # The launcher gave up (or failed): finish the job so that stop always means stopped.
            log.warning("launcher stop failed (%s); sending SIGKILL", result.stdout.strip()[-200:])
            os.kill(pid, signal.SIGKILL)
            self._wait_gone(pid, 10.0)
            self.pid_file.unlink(missing_ok=True)
        return True

    def status(self) -> ServerStatus:
        pid = self._live_pid()
        version = self._version() if pid is not None else None
        return ServerStatus(
            running=pid is not None and version is not None,
            pid=pid,
            version=version,
            bolt_uri=self.bolt_uri,
            http_url=self.http_url,
            browser_url=f"{self.http_url}/browser/",
            home=str(self.home),
            data_dir=str(self.data_dir),
            logs_dir=str(self.logs_dir),
            user=self.user,
            password_file=None if self._password else str(self.password_file),
        )

    # -- provisioning ------------------------------------------------------------------------

    def provision(self) -> None:
        """Resolve the pinned server jars with Maven; skipped while the pom is unchanged."""
        stamp = self.lib / ".pom.sha256"
        digest = hashlib.sha256(POM.read_bytes()).hexdigest()
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return
        _require_java()
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalNeo4jError("Maven (mvn) is required to provision the local Neo4j server")
        if self.lib.exists():
            shutil.rmtree(self.lib)
        self.lib.mkdir(parents=True)
        log.info("provisioning Neo4j from Maven Central into %s", self.lib)
        command = [
            mvn, "-B", "-q", "-f", str(POM), "dependency:copy-dependencies",
            f"-DoutputDirectory={self.lib}", "-DincludeScope=runtime", "-DexcludeTypes=pom",
        ]  # fmt: skip
        try:
            result = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=self.settings.provision_timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise LocalNeo4jError("Maven did not finish provisioning Neo4j in time") from None
        if result.returncode != 0:
            raise LocalNeo4jError(f"Maven failed to provision Neo4j:\n{result.stdout[-2000:]}")
        stamp.write_text(digest + "\n")

    def _write_config(self) -> None:
        s = self.settings
        for folder in (self.conf_dir, self.data_dir, self.logs_dir, self.run_dir):
            folder.mkdir(parents=True, exist_ok=True)
        lines = [
            "# Written by kgs (service/db/local_server.py) at every start; edit settings instead.",
            f"server.default_listen_address={s.listen_address}",
            f"server.default_advertised_address={s.listen_address}",
            f"server.bolt.listen_address={s.listen_address}:{s.bolt_port}",
            f"server.http.listen_address={s.listen_address}:{s.http_port}",
            "server.https.enabled=false",
            f"server.directories.data={self.data_dir}",
            f"server.directories.logs={self.logs_dir}",
            f"server.directories.run={self.run_dir}",
            f"server.memory.heap.initial_size={s.heap_max}",
            f"server.memory.heap.max_size={s.heap_max}",
            f"server.memory.pagecache.size={s.pagecache_size}",
            "dbms.security.auth_enabled=true",
            "dbms.usage_report.enabled=false",
            "server.logs.gc.enabled=false",
            f"internal.dbms.index.vector.standard_merge_factor={s.vector_merge_factor}",
            f"db.tx_log.rotation.retention_policy={s.tx_log_retention}",
            f"browser.remote_content_hostname_whitelist={','.join(self.guide_hosts)}",
            *(f"server.jvm.additional={flag}" for flag in _JVM_ADDITIONAL),
        ]
        (self.conf_dir / "neo4j.conf").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def _set_initial_password(self) -> None:
        if (self.data_dir / "dbms" / "auth.ini").exists() or self._has_database():
            return
        result = self._java(
            # "--" ends the options: a password may itself start with "-".
            [_ADMIN, "dbms", "set-initial-password", "--", self.password()],
            timeout_s=120,
        )
        if result.returncode != 0:
            raise LocalNeo4jError(f"could not set the initial password: {result.stdout[-800:]}")

    def _has_database(self) -> bool:
        return (self.data_dir / "databases" / "system").exists()

    # -- process helpers ---------------------------------------------------------------------

    def _launcher(self, command: str, *, timeout_s: float) -> subprocess.CompletedProcess[str]:
        return self._java([_LAUNCHER, command], timeout_s=timeout_s)

    def _java(self, args: list[str], *, timeout_s: float) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "NEO4J_HOME": str(self.home),
            "NEO4J_CONF": str(self.conf_dir),
            "NEO4J_SHUTDOWN_TIMEOUT": str(int(self.settings.stop_timeout_s)),
        }
        command = [_require_java(), "-cp", f"{self.lib}/*", *args]
        try:
            return subprocess.run(
                command,
                env=env,
                cwd=self.home,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise LocalNeo4jError(f"{args[0]} {args[1]} timed out; see {self.log_file}") from None

    def _live_pid(self) -> int | None:
        """The server's pid if its process is alive; a stale pid file is removed."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        if _alive(pid) and _is_neo4j(pid):
            return pid
        log.warning("removing stale Neo4j pid file %s (pid %s is gone)", self.pid_file, pid)
        self.pid_file.unlink(missing_ok=True)
        return None

    def _require_free_ports(self) -> None:
        """Another process on the Bolt or HTTP port (another checkout's Neo4j, most often) would
        answer in our server's place, with a password ours does not know."""
        settings = self.settings
        for name, port in (("BOLT", settings.bolt_port), ("HTTP", settings.http_port)):
            deadline = time.monotonic() + _PORT_RELEASE_S
            while taken := _port_taken(settings.listen_address, port):
                if time.monotonic() >= deadline:
                    break
                time.sleep(_POLL_INTERVAL_S)
            if taken:
                raise LocalNeo4jError(
                    f"port {port} on {settings.listen_address} is in use by another process, so "
                    f"the local Neo4j cannot start: stop that process (another Neo4j?) or set "
                    f"KGS_NEO4J_{name}_PORT to a free port"
                )

    def _wait_for_bolt(self, pid: int) -> None:
        deadline = time.monotonic() + self.settings.start_timeout_s
        last_error = "no answer yet"
        driver = GraphDatabase.driver(self.bolt_uri, auth=(self.user, self.password()))
        try:
            while time.monotonic() < deadline:
                if not _alive(pid):
                    raise LocalNeo4jError(
                        f"Neo4j (pid {pid}) exited during start-up; see {self.log_file}"
                        f"\n{_tail(self.log_file)}"
                    )
                try:
                    driver.verify_connectivity()
                    return
                except AuthError as error:
                    raise LocalNeo4jError(
                        f"Neo4j runs but rejected the credentials of user {self.user!r}: the "
                        f"password is fixed at first start ({error.message})"
                    ) from error
                except (ServiceUnavailable, OSError) as error:
                    last_error = str(error)
                time.sleep(_POLL_INTERVAL_S)
        finally:
            driver.close()
        raise LocalNeo4jError(
            f"Neo4j did not answer on {self.bolt_uri} within {self.settings.start_timeout_s:.0f} s"
            f" ({last_error}); see {self.log_file}\n{_tail(self.log_file)}"
        )

    def _version(self) -> str | None:
        driver = GraphDatabase.driver(self.bolt_uri, auth=(self.user, self.password()))
        try:
            info = driver.get_server_info()
            return info.agent.removeprefix("Neo4j/")
        except Exception:  # status must report, never raise: a down server is a valid answer
            return None
        finally:
            driver.close()

    @staticmethod
    def _wait_gone(pid: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)


# A server killed a moment ago still holds its ports while its threads exit (its main thread
# already shows as a zombie): a port taken for longer than this belongs to another process.
_PORT_RELEASE_S = 10.0


def _port_taken(address: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((address, port)) == 0


def _require_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java or not Path(java).exists():
        raise LocalNeo4jError("Java 17+ is required for the local Neo4j server (java not found)")
    return java


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); its /proc state says it is gone.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _is_neo4j(pid: int) -> bool:
    """Guards against a recycled pid belonging to another process."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc (not Linux): trust the pid
    return b"org.neo4j" in cmdline


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
