"""Passes over geir modules: the pass manager and one module per pass."""
