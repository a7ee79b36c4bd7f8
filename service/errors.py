"""The one base class of kgs's own errors.

Each error a caller can cause or meet (bad settings, a bad question, an unusable file, a model
that cannot load) derives from KgsError, so the API maps them to problem+json in one place
(service/api/errors.py) and the CLI prints them as one line with a non-zero exit status."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["KgsError"]


class KgsError(Exception):
    """An error of kgs itself, with a message fit to show the user."""

    # What the API answers when one reaches a client: 4xx says what was wrong with the input;
    # 500 (the default) hides the message, which is logged with the trace id.
    http_status: ClassVar[int] = 500

    def public_detail(self) -> str:
        """The problem's `detail` (only for statuses below 500, and 503)."""
        return str(self)
