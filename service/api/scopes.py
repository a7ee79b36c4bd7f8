"""Which scope a request works in, decided against the key's grant."""

from __future__ import annotations

from ingest.pipeline import SCOPE_NAME
from service.api.auth import Grant
from service.api.errors import bad_request, not_found

__all__ = ["SCOPE_PATTERN", "readable_scope"]

SCOPE_PATTERN = SCOPE_NAME.pattern


def readable_scope(grant: Grant, requested: str | None) -> str:
    """The requested scope if the key may read it (404 otherwise, as if it did not exist); with
    none requested, the key's only scope."""
    if requested is None:
        if grant.scopes is not None and len(grant.scopes) == 1:
            return next(iter(grant.scopes))
        raise bad_request("scope is required: this key reads more than one scope")
    if not SCOPE_NAME.match(requested):
        raise bad_request("invalid scope name (letters, digits, '.', '_', '-'; at most 64)")
    if not grant.can_read(requested):
        raise not_found("scope")
    return requested
