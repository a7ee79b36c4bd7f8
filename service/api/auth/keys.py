"""Keys from configuration, hashed at rest and compared in constant time.

A key is configured by its SHA-256 only (`ApiSettings.keys`); a request presents the key itself.
The presented key is hashed and compared with every configured hash by `hmac.compare_digest`,
without stopping at the first match, so timing reveals neither which key nor how much matched.
"""

from __future__ import annotations

import hashlib
import hmac
import logging

import msgspec

from service.settings import ApiSettings

__all__ = ["ALL_SCOPES", "Grant", "Keyring", "hash_key"]

log = logging.getLogger(__name__)

ALL_SCOPES = "*"


def hash_key(key: str) -> str:
    """What the configuration stores for a key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class Grant(msgspec.Struct, frozen=True, kw_only=True):
    """What one request may do: read these scopes (None: every scope), and maybe write."""

    key: str  # the key's configured name, for logs
    scopes: frozenset[str] | None
    write: bool

    def can_read(self, scope: str) -> bool:
        return self.scopes is None or scope in self.scopes

    def readable(self) -> list[str] | None:
        """The scope filter for Cypher (`$scopes IS NULL OR n.scope IN $scopes`)."""
        return None if self.scopes is None else sorted(self.scopes)


DEV_GRANT = Grant(key="development-mode", scopes=None, write=True)


class Keyring:
    """The configured keys; `grant_for` answers None for a missing or unknown key."""

    def __init__(self, settings: ApiSettings) -> None:
        self.dev_mode = settings.dev_mode
        self._entries = [
            (
                key.sha256.encode("ascii"),
                Grant(
                    key=key.name,
                    scopes=None if ALL_SCOPES in key.scopes else frozenset(key.scopes),
                    write=key.write,
                ),
            )
            for key in settings.keys
        ]
        if self.dev_mode:
            log.warning("API development mode: no key needed, every scope readable and writable")
        elif not self._entries:
            log.warning("no API keys configured (KGS_API_KEYS): every /v1 request answers 401")

    def grant_for(self, presented: str | None) -> Grant | None:
        if presented is None:
            return DEV_GRANT if self.dev_mode else None
        digest = hash_key(presented).encode("ascii")
        found: Grant | None = None
        for expected, grant in self._entries:
            if hmac.compare_digest(digest, expected) and found is None:
                found = grant
        if found is None and self.dev_mode:
            return DEV_GRANT
        return found
