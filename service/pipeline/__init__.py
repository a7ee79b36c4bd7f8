"""The evidence pipeline: plan, retrieval, graph context, augmentation, context pack."""
