"""`kgs serve` caps glibc's heap arenas (KGS_API_MALLOC_ARENAS, 2 by default, 0 leaves glibc
alone): the setting is parsed strictly and the cap is accepted by the C library. It also caps
oneDNN's kernel cache unless the environment sets it."""

from __future__ import annotations

import platform

import pytest

from service.cli import cap_onednn_kernels, fix_malloc_mmap_threshold, limit_malloc_arenas
from service.settings import Settings, SettingsError


def test_setting() -> None:
    assert Settings.from_env({}).api.malloc_arenas == 2
    assert Settings.from_env({"KGS_API_MALLOC_ARENAS": "0"}).api.malloc_arenas == 0
    with pytest.raises(SettingsError, match="KGS_API_MALLOC_ARENAS"):
        Settings.from_env({"KGS_API_MALLOC_ARENAS": "two"})


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_accepts_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)  # restored after the test
    assert limit_malloc_arenas(2) is True


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_accepts_a_fixed_mmap_threshold_and_children_inherit_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    assert Settings.from_env({}).api.malloc_mmap_threshold_bytes == 131_072
    assert fix_malloc_mmap_threshold(131_072) is True
    import os

    assert os.environ["MALLOC_MMAP_THRESHOLD_"] == "131072"  # spawned workers read it


def test_onednn_kernels_are_capped_unless_the_environment_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    monkeypatch.delenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", raising=False)
    cap_onednn_kernels(0)
    assert "ONEDNN_PRIMITIVE_CACHE_CAPACITY" not in os.environ  # 0: oneDNN's own default
    assert Settings.from_env({}).api.onednn_primitive_cache == 32
    cap_onednn_kernels(32)
    assert os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == "32"
    monkeypatch.setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "500")
    cap_onednn_kernels(32)
    assert os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == "500"  # the operator's choice
