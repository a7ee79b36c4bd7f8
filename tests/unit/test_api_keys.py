"""API keys: configuration parsing, hashing, grants, development mode."""

import json

import pytest

from service.api.auth import Grant, Keyring, hash_key
from service.settings import ApiSettings, Settings, SettingsError


def _settings(keys: list[dict[str, object]], **env: str) -> ApiSettings:
    return Settings.from_env({"KGS_API_KEYS": json.dumps(keys), **env}).api


def test_keys_from_json_hold_only_hashes() -> None:
    api = _settings([{"name": "app", "sha256": hash_key("s3cret"), "scopes": ["a", "b"]}])
    assert api.keys[0].name == "app"
    assert api.keys[0].sha256 == hash_key("s3cret")
    assert api.keys[0].write is False
    assert api.dev_mode is False


def test_keys_file_adds_to_the_variable(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "keys.json"
    path.write_text(json.dumps([{"name": "file", "sha256": hash_key("f"), "scopes": ["*"]}]))
    api = Settings.from_env({
        "KGS_API_KEYS": json.dumps([{"name": "env", "sha256": hash_key("e")}]),
        "KGS_API_KEYS_FILE": str(path),
    }).api  # fmt: skip
    assert [k.name for k in api.keys] == ["env", "file"]


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        json.dumps([{"name": "x", "sha256": "short"}]),
        json.dumps([{"name": "x", "sha256": "0" * 64, "admin": True}]),  # unknown field
        json.dumps([{"name": "x", "sha256": "0" * 64}, {"name": "x", "sha256": "1" * 64}]),
    ],
)
def test_bad_key_configuration_is_named(raw: str) -> None:
    with pytest.raises(SettingsError, match=r"KGS_API_KEYS|unique"):
        Settings.from_env({"KGS_API_KEYS": raw})


def test_dev_mode_is_off_unless_asked() -> None:
    assert Settings.from_env({}).api.dev_mode is False
    assert Settings.from_env({"KGS_API_DEV_MODE": "on"}).api.dev_mode is True
    with pytest.raises(SettingsError, match="KGS_API_DEV_MODE"):
        Settings.from_env({"KGS_API_DEV_MODE": "yes"})


def test_grants_follow_the_configured_key() -> None:
    keyring = Keyring(_settings([
        {"name": "reader", "sha256": hash_key("r-key"), "scopes": ["a"]},
        {"name": "writer", "sha256": hash_key("w-key"), "scopes": ["a", "b"], "write": True},
        {"name": "all", "sha256": hash_key("all-key"), "scopes": ["*"]},
    ]))  # fmt: skip
    reader = keyring.grant_for("r-key")
    assert reader == Grant(key="reader", scopes=frozenset({"a"}), write=False)
    assert reader.can_read("a") and not reader.can_read("b")
    writer = keyring.grant_for("w-key")
    assert writer is not None and writer.write and writer.readable() == ["a", "b"]
    everything = keyring.grant_for("all-key")
    assert everything is not None and everything.can_read("anything")
    assert everything.readable() is None
    assert keyring.grant_for(None) is None
    assert keyring.grant_for("r-key ") is None  # exact key only
    assert keyring.grant_for(hash_key("r-key")) is None  # the hash is not the key


def test_dev_mode_grants_everything_without_a_key() -> None:
    keyring = Keyring(_settings(
        [{"name": "reader", "sha256": hash_key("r-key"), "scopes": ["a"]}], KGS_API_DEV_MODE="on"
    ))  # fmt: skip
    anonymous = keyring.grant_for(None)
    assert anonymous is not None and anonymous.write and anonymous.scopes is None
    # A configured key keeps its own grant in development mode, so scoping can be tried out.
    assert keyring.grant_for("r-key") == Grant(key="reader", scopes=frozenset({"a"}), write=False)
