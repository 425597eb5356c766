# Common commands. `make test` and `make demo` work on a fresh machine (they create .venv first).
.PHONY: setup test lint demo simulate bench

# Test processes (pytest-xdist); each has its own databases, Redis keys and ports. TEST_WORKERS=0: one process.
# One more than the cores: the worker and fault tests mostly wait on the clock (docs/CONTRIBUTING.md).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))

setup:
	./scripts/setup.sh

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy

test: setup
	./scripts/ensure-services.sh
	./scripts/system-packages.sh
	OLYMPIAD_SECRET_KEY=ci OLYMPIAD_TOKEN_ENCRYPTION_KEY=ci OLYMPIAD_GAMESERVER_URL=https://lichess.org OLYMPIAD_PUBLIC_BASE_URL=https://olympiad.example.org docker-compose config -q
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/pytest -n $(TEST_WORKERS) --dist worksteal

demo: setup
	.venv/bin/olympiad demo

simulate: setup
	.venv/bin/olympiad simulate events/online-olympiad-2020.yaml --seed 2020

bench: setup
	.venv/bin/python bench/simulate_event.py
