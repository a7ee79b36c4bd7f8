"""Markdown knowledge bases into the Neo4j document graph."""
