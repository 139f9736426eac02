# The two README commands: `make serve` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements-test.txt pyproject.toml | sha1sum | cut -c1-12)
PORT ?= 8000

.PHONY: serve test venv browser bench clean

$(STAMP): requirements-test.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-test.txt
	$(PY) -m pip install -q --no-deps -e .
	rm -f $(VENV)/.installed-*; touch $(STAMP)

venv: $(STAMP)

browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

serve: venv
	$(VENV)/bin/eqattn serve --port $(PORT)

test: venv browser
	$(PY) -m pytest -p no:cacheprovider

bench: venv
	$(PY) benchmarks/groups.py
	$(PY) benchmarks/coverage.py

clean:
	rm -rf $(VENV)
