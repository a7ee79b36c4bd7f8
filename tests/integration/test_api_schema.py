"""Schemathesis over the OpenAPI schema, in-process (ASGI) against the real Neo4j: generated
requests, valid and invalid, to every operation must never get a 5xx, and every response must
match the schema (status code, content type, body). Bounded: MAX_EXAMPLES per operation."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings
from tests.integration.conftest import delete_scope

MAX_EXAMPLES = 25  # per operation and mode: about 40 s here, well under two minutes
SCOPE = f"api-fuzz-{uuid.uuid4().hex[:8]}"
KEY = "key-fuzz"


@pytest.fixture(scope="module")
def api_schema(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[Any]:
    # One scope, readable and writable: generated uploads can only land there.
    api = ApiSettings(keys=(ApiKey(name="fuzz", sha256=hash_key(KEY), scopes=(SCOPE,),
                                   write=True),))  # fmt: skip
    test_settings = msgspec.structs.replace(settings, api=api)
    app = create_app(test_settings, AppResources(test_settings, graph=graph, embedder=embedder))
    try:
        yield schemathesis.openapi.from_asgi("/schema/openapi.json", app)
    finally:
        delete_scope(graph, SCOPE)


CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]  # fmt: skip


def test_openapi_schema_holds(api_schema: Any) -> None:
    """Every operation, with schema-valid (positive) and schema-violating (negative) input."""
    failures: dict[str, str] = {}
    for result in api_schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategy = operation.as_strategy(generation_mode=mode, headers={"X-API-Key": KEY})

            @hypothesis_settings(
                max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
            )  # fmt: skip
            @given(case=strategy)
            def exercise(case: Any) -> None:
                case.validate_response(case.call(), checks=CHECKS)

            try:
                exercise()
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE  # nothing to break: no input at all
            except (Exception, BaseExceptionGroup) as error:  # report every operation
                failures[f"{operation.label} [{mode}]"] = str(error)[:3000]
    assert not failures, "\n\n".join(f"{name}:\n{text}" for name, text in failures.items())
