# Table Companion. `make demo` and `make test` do everything on a fresh Debian machine
# with Python 3.11: they create .venv, install the package into it, then run.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# Debian packages the tests need: a virtual X display and Mesa's software GL (kiosk);
# the Mosquitto broker and a headless Chromium (club night: tests/club, make club-demo).
SYSDEPS := xvfb xauth libgl1 libgl1-mesa-dri libmtdev1 mosquitto chromium
PYTEST_ARGS ?=

.PHONY: demo test lint bench screenshots install-pi pi-check sysdeps venv clean help club-demo

help:
	@echo "make demo         set up and run the demo"
	@echo "make test         set up and run every test (kiosk tests under Xvfb)"
	@echo "make lint         ruff"
	@echo "make bench        speed and accuracy benchmarks (results in benchmarks/results/)"
	@echo "make screenshots  screenshots of every kiosk screen into build/screenshots/ (UPDATE=1: docs/screenshots/)"
	@echo "make install-pi   install on a Raspberry Pi and enable the kiosk service"
	@echo "make club-demo    a local Mosquitto, the club hub and three simulated tables"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Python 3.11 or newer is needed; $(PYTHON) is $$($(PYTHON) --version)"; exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -q && apt-get install -y -q python3-venv && $(PYTHON) -m venv $(VENV); \
	  else echo "Cannot create a virtual environment: install python3-venv (sudo apt-get install python3-venv)"; exit 1; fi; }

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

sysdeps:
	@missing=""; for p in $(SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing$$missing (for the kiosk and club tests)"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else echo "The kiosk and club tests need these Debian packages:$$missing"; \
	    echo "Install them with: sudo apt-get install$$missing"; exit 1; fi; fi

demo: $(STAMP)
	$(BIN)/companion demo

test: $(STAMP) sysdeps
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo
	xvfb-run -a -s "-screen 0 1280x800x24" $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

# Under a virtual display: the kiosk, latency and memory benchmarks open the real kiosk.
bench: $(STAMP) sysdeps
	xvfb-run -a -s "-screen 0 1280x800x24" $(BIN)/python -m benchmarks

# Into build/screenshots; `make screenshots UPDATE=1` replaces the ones in docs/screenshots.
screenshots: $(STAMP) sysdeps
	xvfb-run -a -s "-screen 0 1280x800x24" $(BIN)/python -m kiosk.screenshots $(if $(UPDATE),--update)

# Club night (docs/club.md): prints the scoreboard's URL, runs until Ctrl-C.
club-demo: $(STAMP) sysdeps
	$(BIN)/companion club demo --tables 3

install-pi:
	bash systemd/install-pi.sh

pi-check: $(STAMP)
	$(BIN)/python systemd/pi_check.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
