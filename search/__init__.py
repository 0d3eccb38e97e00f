"""Full-text search over the registered kinds of record, on SQLite or PostgreSQL."""
