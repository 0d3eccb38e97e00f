"""Full-text search over people, publications and events, on SQLite or PostgreSQL."""

from directory.search.engines import get_engine, highlight
from directory.search.indexing import deferred, rebuild
from directory.search.query import Query, parse

__all__ = ["Query", "deferred", "get_engine", "highlight", "parse", "rebuild"]
