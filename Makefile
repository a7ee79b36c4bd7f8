# Two commands from a fresh clone: `make run` and `make test` (see README.md).
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
KGS    := $(BIN)/kgs
RUNTIME := $(VENV)/.installed-runtime
DEV     := $(VENV)/.installed-dev

.PHONY: install install-dev vendor run test lint typecheck neo4j-start neo4j-stop neo4j-status bench clean

# `make run` installs what serving needs; `make test` adds the dev extra (test tools, Playwright,
# llama.cpp built from source for the local-model tests: about ten minutes on two cores).
$(RUNTIME): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q --upgrade pip
	$(BIN)/pip install --disable-pip-version-check -q -e .
	touch $(RUNTIME)

# llama.cpp is built for a portable x86-64 (AVX2) CPU, not the build machine's own: a CPU may
# announce AMX or AVX-512 that its virtual machine does not let a process use, and a native
# build then dies of an illegal instruction at the first token. --no-cache-dir keeps pip from
# reusing a wheel built another way (its cache ignores CMAKE_ARGS); the version is the dev
# extra's in pyproject.toml.
LLAMA_CPP := llama-cpp-python[server]==0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

$(DEV): $(RUNTIME)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --disable-pip-version-check -q \
	  --no-cache-dir '$(LLAMA_CPP)'
	$(BIN)/pip install --disable-pip-version-check -q -e '.[dev]'
	touch $(DEV)

install: $(RUNTIME)
install-dev: $(DEV)

# The inspector's libraries (graph drawing, the Operations tab's charts) are vendored in the
# repository with their licences (THIRD_PARTY_NOTICES.md), so no user needs npm; `make vendor`
# refreshes them from npm. Chart.js's UMD build bundles its one dependency, @kurkle/color
# (KURKLE, the version inside that build): only its licence text is copied.
CYTOSCAPE := 3.35.0
CHARTJS   := 4.6.1
KURKLE    := 0.3.2
VENDOR    := service/api/inspector/vendor
vendor:
	@command -v npm >/dev/null || { echo "npm is required to refresh the vendored assets"; exit 1; }
	rm -rf build/npm && mkdir -p build/npm/cytoscape build/npm/chartjs build/npm/kurkle $(VENDOR)
	cd build/npm/cytoscape && npm pack --silent cytoscape@$(CYTOSCAPE) >/dev/null && tar -xzf cytoscape-$(CYTOSCAPE).tgz
	cp build/npm/cytoscape/package/dist/cytoscape.min.js $(VENDOR)/cytoscape.min.js
	cp build/npm/cytoscape/package/LICENSE $(VENDOR)/cytoscape.LICENSE
	cd build/npm/chartjs && npm pack --silent chart.js@$(CHARTJS) >/dev/null && tar -xzf chart.js-$(CHARTJS).tgz
	cp build/npm/chartjs/package/dist/chart.umd.js $(VENDOR)/chart.umd.js
	cp build/npm/chartjs/package/LICENSE.md $(VENDOR)/chart.js.LICENSE
	cd build/npm/kurkle && npm pack --silent @kurkle/color@$(KURKLE) >/dev/null && tar -xzf kurkle-color-$(KURKLE).tgz
	cp build/npm/kurkle/package/LICENSE.md $(VENDOR)/kurkle-color.LICENSE

# Debian's chromium for the inspector's browser tests (driven by Playwright from PyPI), and a
# font with Chinese glyphs for its Chinese labels; nothing is installed where chromium is
# already on the PATH, and without root or password-less sudo the step says what to install.
BROWSER_PACKAGES := chromium fonts-wqy-zenhei
.PHONY: browser
browser:
	@command -v chromium >/dev/null 2>&1 || dpkg -s $(BROWSER_PACKAGES) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; \
	  else echo "make test needs Debian's $(BROWSER_PACKAGES) for the browser test; install them" \
	    "(apt-get install $(BROWSER_PACKAGES)) as root, then run make test again"; exit 1; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(BROWSER_PACKAGES); }

# Provision the database the way the code chooses it (NEO4J_URI, Docker, or the local server),
# apply the schema, ingest the shipped knowledge base, serve the API on 127.0.0.1:8000
# (development mode: no API key needed; KGS_API_DEV_MODE=off make run to require keys).
run: install
	$(KGS) ingest knowledge_base --prune
	KGS_API_DEV_MODE=$${KGS_API_DEV_MODE:-on} $(KGS) serve --host 127.0.0.1 --port 8000

# Same provisioning (the test session chooses and starts Neo4j like the service does), then
# lint, type checks and every test against the real Neo4j.
test: install-dev browser
	$(BIN)/ruff check service ingest tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest -p no:cacheprovider tests

lint: install-dev
	$(BIN)/ruff check service ingest tests
	$(BIN)/ruff format --check service ingest tests
	$(BIN)/lint-imports

typecheck: install-dev
	$(BIN)/mypy

# Every benchmark script in bench/ with its own bounded defaults, then one table of figures.
bench: install-dev
	$(BIN)/python bench/run_all.py

# The fault suite (kill -9 during ingest, Neo4j killed under load, concurrent writers, hostile
# input, rate limits, timeouts; the same tests run in `make test`), then the long load test
# (64 clients for 120 s over 5,000 documents), then a table of each result and its figures.
.PHONY: faults
faults: install-dev
	$(BIN)/python bench/faults_report.py --load

# The soak run: a running service (`KGS_API_RATE_LIMIT_REQUESTS=0 make run` in another terminal:
# the clients share one address) under a steady mix of new and repeated questions, uploads and
# deletes for 30 minutes, its RSS every 30 s with the slope per 10 minutes; SOAK_ARGS to change.
.PHONY: soak
soak: install-dev
	$(BIN)/python bench/soak.py $(SOAK_ARGS)

neo4j-start: install
	$(KGS) neo4j start
neo4j-stop: install
	$(KGS) neo4j stop
neo4j-status: install
	$(KGS) neo4j status

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache build
