"""The REST API (Litestar): app factory, routes, problem details."""

from service.api.app import create_app

__all__ = ["create_app"]
