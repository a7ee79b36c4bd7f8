"""OpenTelemetry export (docs/operations.md, "OpenTelemetry")."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import env_name

__all__ = ["TelemetrySettings"]


class TelemetrySettings(msgspec.Struct, frozen=True, kw_only=True):
    """Spans of each request and each answer's stages, sent to an OTLP/HTTP collector."""

    # The collector's base URL (the OpenTelemetry SDK's own variable; spans go to
    # <endpoint>/v1/traces). Unset: no tracer, no export, nothing recorded.
    endpoint: Annotated[str, env_name("OTEL_EXPORTER_OTLP_ENDPOINT")] = ""
    # The question as a span attribute (kgs.question); off: never, whatever else is exported.
    include_text: Annotated[bool, env_name("KGS_OTEL_INCLUDE_TEXT")] = False
    service_name: Annotated[str, env_name("KGS_OTEL_SERVICE_NAME")] = "kgs"  # service.name of spans
