"""neomodel bound to the service's own driver and database, for the object model's
administrative reads (service/graph_model.py). neomodel keeps one process-wide connection."""

from __future__ import annotations

from neomodel import db, get_config

from service.db.graph import Graph

__all__ = ["bind_object_model"]


def bind_object_model(graph: Graph) -> None:
    """Point neomodel at this graph's driver and database (idempotent)."""
    get_config().database_name = graph.database
    db.set_connection(driver=graph.driver)
