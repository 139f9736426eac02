# The two README commands: `make serve` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements-test.txt pyproject.toml | sha1sum | cut -c1-12)
PORT ?= 8000
ESCNN_VENV ?= .venv-escnn
ESCNN_STAMP := $(ESCNN_VENV)/.installed-$(shell cat requirements-escnn.txt | sha1sum | cut -c1-12)

.PHONY: serve test venv browser bench clean docs

$(STAMP): requirements-test.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-test.txt
	$(PY) -m pip install -q --no-deps -e .
	rm -f $(VENV)/.installed-*; touch $(STAMP)

# escnn in its own small venv (see requirements-escnn.txt) that sees the main venv after its own
$(ESCNN_STAMP): requirements-escnn.txt $(STAMP)
	test -x $(ESCNN_VENV)/bin/python || python3 -m venv $(ESCNN_VENV)
	$(ESCNN_VENV)/bin/python -m pip install -q --no-deps -r requirements-escnn.txt
	main=$$($(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"); \
	  own=$$($(ESCNN_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"); \
	  echo "import site; site.addsitedir('$$main')" > $$own/zz_eqattn_main_venv.pth
	rm -f $(ESCNN_VENV)/.installed-*; touch $(ESCNN_STAMP)

venv: $(STAMP) $(ESCNN_STAMP)

docs: venv
	$(VENV)/bin/mkdocs build --strict

browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

serve: venv
	$(VENV)/bin/eqattn serve --port $(PORT)

# the suite in parallel, one file per worker at a time (some files share state between their tests)
test: venv browser
	$(PY) -m pytest -p no:cacheprovider -n auto --dist loadfile

bench: venv
	$(PY) benchmarks/groups.py
	$(PY) benchmarks/coverage.py

clean:
	rm -rf $(VENV) $(ESCNN_VENV) site
