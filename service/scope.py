"""Scopes: every node carries its scope; full-text queries require it through a scope key."""

from __future__ import annotations

import hashlib

__all__ = ["scope_key"]


def scope_key(scope: str) -> str:
    """One Lucene token per scope ('s' + 16 hex): survives the analyzer as a single term."""
    return "s" + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:16]
