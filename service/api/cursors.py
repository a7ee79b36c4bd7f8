"""Opaque page cursors: the last item's key, URL-safe base64, checked against its shape on the
way back (a client passes nextCursor unchanged; anything else is a 400)."""

from __future__ import annotations

import base64
import binascii
import re

from service.api.errors import bad_request

__all__ = ["decode_cursor", "encode_cursor"]


def encode_cursor(key: str) -> str:
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, shape: re.Pattern[str]) -> str:
    try:
        value = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        value = ""
    if not shape.fullmatch(value):
        raise bad_request("invalid cursor: pass nextCursor from the previous page unchanged")
    return value
