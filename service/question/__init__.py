"""One question end to end: scope choice, the evidence stages, the answer stages, the trace."""
