"""Dialect definitions; each module exposes ``DIALECT`` (see geir.dialect_registry)."""
