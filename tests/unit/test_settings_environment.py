"""Each setting is declared once: its default on its field, its variable derived from its
section (or named on the field), and every kgs error shares one base class."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import msgspec
import pytest

import ingest
import service
from service.errors import KgsError
from service.settings import (
    AnswerSettings,
    ApiSettings,
    ConflictSettings,
    PipelineSettings,
    Settings,
    SettingsError,
    TextCacheSettings,
)
from service.settings.environment import read_section

_SECTIONS = ["neo4j", "local", "embedding", "ingest", "llm", "api", "pipeline", "answer",
             "conflicts", "text_cache"]  # fmt: skip


class _Recording(dict[str, str]):
    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def get(self, key: str, default: Any = None) -> Any:
        self.read.append(key)
        return super().get(key, default)


def test_without_environment_every_section_is_its_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.pipeline == PipelineSettings()
    assert settings.answer == AnswerSettings()
    assert settings.conflicts == ConflictSettings()
    assert settings.text_cache == TextCacheSettings()
    assert settings.api == ApiSettings()


def test_every_variable_is_read_once_and_belongs_to_one_field() -> None:
    env = _Recording()
    Settings.from_env(env)
    repeated = {name for name in env.read if env.read.count(name) > 1} - {"KGS_HOME"}
    assert not repeated, f"read by more than one field: {sorted(repeated)}"
    assert "KGS_PIPELINE_TOP_K" in env.read
    assert "KGS_CONFLICT_FACTS_MAX_FACTS_PER_DOCUMENT" in env.read  # nested section


@pytest.mark.parametrize(
    ("name", "value", "section", "field", "expected"),
    [
        ("KGS_PIPELINE_TOP_K", "12", "pipeline", "top_k", 12),
        ("KGS_PIPELINE_FUSION", "rrf", "pipeline", "fusion", "rrf"),
        ("KGS_ANSWER_ANSWERABILITY_BIAS", "-3.5", "answer", "answerability_bias", -3.5),
        ("KGS_ANSWER_ANSWERABILITY_THRESHOLD", "0", "answer", "answerability_threshold", 0.0),
        ("KGS_CONFLICT_MAX_CONFLICTS", "5", "conflicts", "max_conflicts", 5),
        ("KGS_API_DEV_MODE", "on", "api", "dev_mode", True),
        ("KGS_EMBEDDINGS", "off", "embedding", "enabled", False),
    ],
)
def test_a_variable_sets_its_field(
    name: str, value: str, section: str, field: str, expected: Any
) -> None:
    assert getattr(getattr(Settings.from_env({name: value}), section), field) == expected


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("KGS_PIPELINE_TOP_K", "0"),  # positive default: must stay positive
        ("KGS_PIPELINE_TOP_K", "eight"),
        ("KGS_ANSWER_SUFFICIENT_COVERAGE", "-0.1"),
        ("KGS_LLM_RESPONSE_FORMAT", "xml"),
        ("KGS_USE_DOCKER", "maybe"),
    ],
)
def test_bad_values_name_their_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_use_docker_reads_auto_as_on() -> None:
    assert Settings.from_env({"KGS_USE_DOCKER": "auto"}).use_docker is True
    assert Settings.from_env({"KGS_USE_DOCKER": "off"}).use_docker is False


def test_a_section_reads_only_its_prefix() -> None:
    section = read_section(PipelineSettings, {"KGS_ANSWER_TOP_K": "3"}, "KGS_PIPELINE_")
    assert section == PipelineSettings()


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for package in (service, ingest):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and issubclass(value, Exception)
                    and value.__module__ == module.__name__
                    and not name.startswith("_")
                ):
                    found.append(value)  # fmt: skip
    return found


def test_every_kgs_error_derives_from_kgs_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 10
    # Neo4j's own DriverError keeps its type: the driver and the API treat it as Neo4j's.
    strays = [c.__qualname__ for c in classes
              if not issubclass(c, KgsError) and c.__name__ != "DriverErrorNotOpen"]  # fmt: skip
    assert not strays, f"not a KgsError: {strays}"


def test_settings_sections_are_frozen_structs() -> None:
    for section in _SECTIONS:
        value = getattr(Settings.from_env({}), section)
        assert isinstance(value, msgspec.Struct)
        with pytest.raises(AttributeError):
            setattr(value, msgspec.structs.fields(value)[0].name, None)
