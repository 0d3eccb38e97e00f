import pytest
from django.db.migrations.loader import MigrationLoader

from search.models import SearchTerm


def test_search_term_moved_from_the_shared_app_keeps_its_table():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    before = loader.project_state(("directory", "0002_searchterm_topicclosure")).apps
    after = loader.project_state(("directory", "0003_searchterm_to_search")).apps
    old = before.get_model("directory", "SearchTerm")
    new = after.get_model("search", "SearchTerm")
    assert old._meta.db_table == new._meta.db_table == SearchTerm._meta.db_table
    assert [f.column for f in new._meta.fields] == [f.column for f in old._meta.fields]
    with pytest.raises(LookupError):
        after.get_model("directory", "SearchTerm")
