"""API keys and scopes: who may read which scopes, and who may write."""

from service.api.auth.guards import (
    API_KEY_HEADER,
    KEYRING_STATE,
    authenticate,
    provide_grant,
    requires_write,
)
from service.api.auth.keys import Grant, Keyring, hash_key

__all__ = [
    "API_KEY_HEADER",
    "KEYRING_STATE",
    "Grant",
    "Keyring",
    "authenticate",
    "hash_key",
    "provide_grant",
    "requires_write",
]
