import pytest

from service.cli import _parse_param
from service.settings import Settings, SettingsError


def test_defaults_without_environment() -> None:
    settings = Settings.from_env({})
    assert settings.neo4j.uri is None
    assert settings.neo4j.user == "neo4j"
    assert settings.local.bolt_port == 7687
    assert settings.local.http_port == 7474
    assert settings.embedding.dimensions == 384
    assert settings.local.home.name == "neo4j"
    assert settings.embedding.traced is True


def test_environment_overrides() -> None:
    settings = Settings.from_env(
        {"NEO4J_URI": "bolt://db:7687", "KGS_NEO4J_BOLT_PORT": "17687", "KGS_HOME": "/tmp/x"}
    )
    assert settings.neo4j.uri == "bolt://db:7687"
    assert settings.local.bolt_port == 17687
    assert str(settings.local.home) == "/tmp/x/neo4j"
    assert Settings.from_env({"KGS_EMBEDDING_TRACED": "off"}).embedding.traced is False
    assert Settings.from_env({"KGS_API_GC_YOUNG_THRESHOLD": "700"}).api.gc_young_threshold == 700


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("KGS_NEO4J_BOLT_PORT", "x"),
        ("KGS_NEO4J_QUERY_TIMEOUT_S", "-1"),
        ("KGS_NEO4J_VECTOR_MERGE_FACTOR", "1"),  # Lucene merges at least two segments
        ("KGS_EMBEDDING_TRACED", "yes"),  # on or off
        ("KGS_API_GC_YOUNG_THRESHOLD", "10"),  # a collection every few objects: refused
    ],
)
def test_bad_values_are_named(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_cli_parameters_parse_json_else_string() -> None:
    assert _parse_param("limit=5") == ("limit", 5)
    assert _parse_param('ids=["a","b"]') == ("ids", ["a", "b"])
    assert _parse_param("scope=waterglass") == ("scope", "waterglass")
    with pytest.raises(SettingsError):
        _parse_param("no-equals-sign")
