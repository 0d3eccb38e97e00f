"""Helpers that need no Django: SVG layouts, Markdown, partial dates, identifiers.

Each is plain Python over plain values, usable from a script or a test without
settings; an import-linter contract in pyproject.toml keeps Django out of them.
"""
