"""Scopes: every node carries its scope; full-text queries require it through a scope key."""

from __future__ import annotations

import hashlib

__all__ = ["scope_fulltext_index", "scope_key", "scope_label"]


def scope_key(scope: str) -> str:
    """One Lucene token per scope ('s' + 16 hex): survives the analyzer as a single term."""
    return "s" + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:16]


def scope_label(scope: str) -> str:
    """The label the paragraphs of a large scope carry, for the scope's own indexes."""
    return "Scope_" + scope_key(scope)


def scope_fulltext_index(scope: str) -> str:
    """The name of a large scope's own full-text index (see cypher/scope/)."""
    return "paragraph_search_" + scope_key(scope)
