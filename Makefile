# The two commands a newcomer runs: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# `make run` serves a development site on loopback; production sets DEBUG=0 itself.
RUN_ENV := DEBUG=1

.PHONY: run test setup migrate demo check lint format serve clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python requirements.txt requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	@touch $@

setup: $(VENV)/.installed

migrate: setup
	@mkdir -p var
	$(RUN_ENV) $(BIN)/python manage.py migrate --noinput

demo: migrate
	$(RUN_ENV) $(BIN)/python manage.py load_demo

run: demo
	$(RUN_ENV) $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# pytest exits 5 when it collects no test: that is not a failure of the set-up.
test: demo
	$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

check: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(RUN_ENV) $(BIN)/python manage.py makemigrations --check --dry-run

lint: check

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var
