import os
import uuid
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest


def _postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


@pytest.fixture
def scratch_database(tmp_path) -> Iterator[Callable[[str], str]]:
    """Make empty databases of the engine under test, outside the test database.

    Each call returns a DATABASE_URL for another process: a file under tmp_path on
    SQLite, a database created on the server and dropped after the test on
    PostgreSQL. Never the developer's var/directory.sqlite3.
    """
    server = _postgres_url()
    created: list[str] = []

    def make(name: str) -> str:
        if server is None:
            return f"sqlite:///{tmp_path / name}.sqlite3"
        database = f"scratch_{name}_{uuid.uuid4().hex[:10]}"
        _maintenance(server, f'CREATE DATABASE "{database}"')
        created.append(database)
        return urlsplit(server)._replace(path=f"/{database}").geturl()

    yield make
    for database in created:
        _maintenance(server, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def _maintenance(server: str, statement: str) -> None:
    import psycopg

    # As Django does for test databases: through the server's "postgres" database,
    # whatever the URL names (it need not exist).
    maintenance = urlsplit(server)._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(statement)
