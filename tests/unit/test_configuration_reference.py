"""docs/configuration.md is generated from the settings Structs and must match them; every
variable has a meaning and is really read; unknown KGS_* variables are named with a hint."""

from __future__ import annotations

import pytest

from service.cli import main
from service.settings import Settings, SettingsError, project_root
from service.settings.reference import render, unknown_variables, variables

PAGE = project_root() / "docs" / "configuration.md"


def test_the_reference_page_is_the_generated_one() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md is stale: .venv/bin/python -m service.settings.reference "
        "> docs/configuration.md"
    )


def test_every_variable_has_a_meaning_and_one_name() -> None:
    found = variables()
    assert len(found) > 150
    assert [v.name for v in found if not v.meaning] == []
    names = [v.name for v in found]
    assert len(names) == len(set(names))


def test_every_numeric_variable_listed_is_read() -> None:
    """A name the page lists but no setting reads would let a wrong value pass silently."""
    numeric = [v for v in variables() if v.type in ("int", "float") and v.field]
    assert numeric
    for variable in numeric:
        with pytest.raises(SettingsError, match=variable.name):
            Settings.from_env({variable.name: "not-a-number"})


def test_unknown_variables_are_named_with_the_nearest_known_one() -> None:
    env = {"KGS_PIPELINE_TOPK": "5", "KGS_PIPELINE_TOP_K": "5", "KGS_ZZZ": "1", "PATH": "/bin"}
    assert unknown_variables(env) == [
        ("KGS_PIPELINE_TOPK", "KGS_PIPELINE_TOP_K"), ("KGS_ZZZ", None),
    ]  # fmt: skip


def test_the_cli_warns_about_a_misspelt_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KGS_INGEST_MAX_FILE_BYTE", "10")
    monkeypatch.setenv("KGS_PIPELINE_TOP_K", "not-a-number")  # stops the command after the warning
    assert main(["cypher", "RETURN 1"]) != 0
    err = capsys.readouterr().err
    assert "KGS_INGEST_MAX_FILE_BYTE is not a kgs setting" in err
    assert "did you mean KGS_INGEST_MAX_FILE_BYTES?" in err
    assert "KGS_PIPELINE_TOP_K must be an integer" in err
