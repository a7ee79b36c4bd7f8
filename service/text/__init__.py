"""Text analysis shared by ingest and the evidence path: tokens, sentences, facts, name keys and
the analysis stored per paragraph. Pure functions of text; no database, no settings beyond the
cache sizes."""
