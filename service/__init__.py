"""kgs: the Knowledge Graph Service."""
