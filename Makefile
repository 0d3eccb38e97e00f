# The two commands a newcomer runs: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# `make run` serves a development site on loopback; production sets DEBUG=0 itself.
RUN_ENV := DEBUG=1
# Data commands default to the development settings too, unless DEBUG is set.
MANAGE_ENV := DEBUG=$${DEBUG:-1}

.PHONY: run test test-fast coverage coverage-report setup migrate demo demo-once check audit lint format serve bench backup restore clean screenshots semantic relevance

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python requirements.txt requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	@touch $@

setup: $(VENV)/.installed

# The optional extra for search by meaning (SEMANTIC_SEARCH=1), into the same
# environment; `make rebuild` afterwards computes every vector.
$(VENV)/.semantic: $(VENV)/.installed requirements-semantic.txt
	$(BIN)/pip install --quiet -r requirements-semantic.txt
	@touch $@

semantic: $(VENV)/.semantic

# Recall@5, MRR and nDCG@10 of the judged queries in bench/relevance/, keyword-only
# and hybrid, on the demo lab and a generated one (bench/results/relevance-*.json).
relevance: semantic
	for lab in demo generated; do \
		$(BIN)/python bench/relevance/run.py --lab $$lab && \
		SEMANTIC_SEARCH=1 $(BIN)/python bench/relevance/run.py --lab $$lab || exit 1; \
	done

migrate: setup
	@mkdir -p var
	$(RUN_ENV) $(BIN)/python manage.py migrate --noinput

# `make demo` loads the demo lab again, over any edit made to its records since;
# `make run` and the test targets load it only into a database without it, and
# `DEMO=0 make run` serves a site without it (your own lab, README).
DEMO ?= 1
demo: migrate
	$(RUN_ENV) $(BIN)/python manage.py load_demo

demo-once: migrate
ifeq ($(DEMO),1)
	$(RUN_ENV) $(BIN)/python manage.py load_demo --if-missing
endif

run: demo-once
	$(RUN_ENV) $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# Two workers for the two cores (each with its own test database), each taking whole
# files, so that a file's shared data and servers are made once; the 25 slowest
# tests are listed after every run. docs/testing.md describes the suite.
PYTEST_ARGS ?= -n 2 --dist loadfile --durations=25
PYTEST := $(BIN)/python -m pytest
# pytest exits 5 when it collects no test: that is not a failure of the set-up.
test: demo-once
	$(PYTEST) $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

# The quick loop while developing: no browser, none of the tests marked slow.
test-fast: demo-once
	$(PYTEST) $(PYTEST_ARGS) -m "not slow and not e2e"

# The whole suite with line and branch coverage, one data file per database engine
# (var/coverage/<engine>.coverage); `make coverage-report` adds up the engines
# measured and fails under COVERAGE_MIN percent of lines and branches together
# (.ci/run measures both engines).
ENGINE = $(if $(filter postgres%,$(DATABASE_URL)),postgresql,sqlite)
COVERAGE_MIN ?= 96
coverage: demo-once
	@mkdir -p var/coverage
	COVERAGE_FILE=var/coverage/$(ENGINE).coverage $(PYTEST) $(PYTEST_ARGS) \
		--cov --cov-report=term:skip-covered

coverage-report: setup
	$(BIN)/coverage combine --keep --data-file=var/coverage/all.coverage \
		$(wildcard var/coverage/sqlite.coverage var/coverage/postgresql.coverage)
	$(BIN)/coverage report --data-file=var/coverage/all.coverage --fail-under=$(COVERAGE_MIN)

# Production-style serving: gunicorn, workers sized to the cores, static files by
# whitenoise. Set SECRET_KEY, ALLOWED_HOSTS (and the SECURE_* switches for plain HTTP).
WORKERS ?= $(shell echo $$(( $$(nproc) * 2 + 1 )))
serve: migrate
	$(BIN)/python manage.py collectstatic --noinput -v0
	$(BIN)/gunicorn directory.wsgi:application --bind 127.0.0.1:$(PORT) \
		--workers $(WORKERS) --max-requests 5000 --max-requests-jitter 500 --access-logfile -

# A consistent snapshot of the data (JSON via dumpdata: the same on SQLite and
# PostgreSQL), and its restore into an empty or existing database. It holds password
# hashes and API tokens: the file is its owner's only (0600), and so is
# var/backups/ and any directory made for it (0700).
BACKUP_DIR := var/backups
BACKUP ?= $(BACKUP_DIR)/directory-$(shell date +%Y%m%d-%H%M%S).json
backup: setup
	@umask 077 && mkdir -p $(dir $(BACKUP)) && \
		if [ "$(dir $(BACKUP))" = "$(BACKUP_DIR)/" ]; then chmod 700 $(BACKUP_DIR); fi
	@# Emptied and made 0600 before a byte is written, should the file exist.
	@umask 077 && : > $(BACKUP) && chmod 600 $(BACKUP)
	umask 077 && $(MANAGE_ENV) $(BIN)/python manage.py dumpdata --natural-foreign --natural-primary \
		--exclude contenttypes --exclude auth.permission --exclude sessions \
		--exclude search.searchterm --exclude people.personsearchdocument \
		--exclude publications.publicationsearchdocument \
		--exclude events.eventsearchdocument --exclude search.embedding \
		--exclude people.similarperson --exclude people.stalesimilarity \
		--exclude people.persontopic --exclude search.facetvalue \
		--exclude search.facetcount \
		--indent 1 -o $(BACKUP)
	@echo "Wrote $(BACKUP)"

restore: migrate
	@test -n "$(FILE)" || { echo "usage: make restore FILE=var/backups/….json"; exit 2; }
	$(MANAGE_ENV) $(BIN)/python manage.py loaddata $(FILE)
	$(MANAGE_ENV) $(BIN)/python manage.py rebuild_search_index

# Benchmarks (never part of `make test`): SQLite, plus PostgreSQL when DATABASE_URL
# points at one. Results go to bench/results/.
bench: setup
	@command -v wrk >/dev/null 2>&1 || apt-get install -y -qq wrk >/dev/null 2>&1 || \
		{ echo "make bench needs wrk (apt-get install wrk)"; exit 1; }
	DEBUG=0 SECRET_KEY=bench-only-key-0123456789abcdefghijklmnopqrstuvwxyz \
		$(BIN)/python manage.py collectstatic --noinput -v0
	$(BIN)/python bench/run.py

# PNGs of the main pages at 1280, 768 and 375 px from Debian's Chromium (with
# fonts-noto-cjk for names in Chinese script), into docs/screenshots/; the README's
# pictures (docs/*.png) are refreshed from them.
screenshots: setup
	@test -x /usr/bin/chromium && fc-list 2>/dev/null | grep -qi cjk || { \
		apt-get install -y -qq chromium fonts-noto-cjk >/dev/null 2>&1 || \
		echo "make screenshots needs chromium and fonts-noto-cjk (apt-get install)"; }
	$(BIN)/python -m tests.e2e.screenshots

# Known vulnerabilities in the installed requirements (pip-audit; run by .ci/run).
audit: setup
	$(BIN)/python .ci/audit.py

check: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-logo --no-cache
	@mkdir -p var  # makemigrations reads the migration history of the default database
	$(RUN_ENV) $(BIN)/python manage.py makemigrations --check --dry-run

lint: check

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var
