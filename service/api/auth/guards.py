"""Authentication and authorization as Litestar guards on the /v1 router.

`authenticate` turns the presented key into `request.user` (a Grant): no key or an unknown one
-> 401. `requires_write` guards every route that changes the graph -> 403 without the write flag.
A scope, document or trace outside the grant is answered 404 by the handlers themselves, exactly
like one that does not exist, so a key never learns what other scopes hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler

from service.api.auth.keys import Grant, Keyring

__all__ = [
    "API_KEY_HEADER",
    "KEYRING_STATE",
    "authenticate",
    "key_in_headers",
    "presented_key",
    "provide_grant",
    "requires_write",
]

API_KEY_HEADER = "X-API-Key"
KEYRING_STATE = "keyring"  # app.state key of the Keyring
_BEARER = "bearer "


def authenticate(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    keyring: Keyring = connection.app.state[KEYRING_STATE]
    grant = keyring.grant_for(presented_key(connection))
    if grant is None:
        raise NotAuthorizedException(
            "a valid API key is required (header X-API-Key, or Authorization: Bearer KEY)",
            headers={"WWW-Authenticate": f'ApiKey header="{API_KEY_HEADER}"'},
        )
    connection.scope["user"] = grant


def requires_write(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    if not provide_grant(connection).write:
        raise PermissionDeniedException("this API key may not write")


def provide_grant(request: ASGIConnection[Any, Any, Any, Any]) -> Grant:
    """The `grant` dependency of every /v1 handler (set by `authenticate`)."""
    user = request.scope.get("user")
    if not isinstance(user, Grant):
        raise NotAuthorizedException("a valid API key is required")
    return user


def presented_key(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The key a request presents (also read by the rate limit, to tell keys apart)."""
    return key_in_headers(connection.headers)


def key_in_headers(headers: Mapping[str, str]) -> str | None:
    """X-API-Key, else Authorization: Bearer KEY (`headers` looked up case-insensitively, as
    Litestar's and Starlette's are; the MCP server reads its requests' through the SDK)."""
    key = headers.get(API_KEY_HEADER)
    if key:
        return key
    authorization = headers.get("Authorization", "")
    if authorization.lower().startswith(_BEARER):
        return authorization[len(_BEARER) :].strip() or None
    return None
