"""The one base class of kgs's own errors.

Each error a caller can cause or meet (bad settings, a bad question, an unusable file, a model
that cannot load) derives from KgsError, so the API maps them to problem+json in one place
(service/api/errors.py) and the CLI prints them as one line with a non-zero exit status."""

from __future__ import annotations

__all__ = ["KgsError"]


class KgsError(Exception):
    """An error of kgs itself, with a message fit to show the user."""
