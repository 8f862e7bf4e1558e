# Two commands for a fresh machine: `make arena` (the main job) and `make test`.
# Both create .venv and install everything pinned in requirements/lock.txt on first use.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements/lock.txt

.PHONY: setup browser arena test test-wheel test-slow test-notebooks lab bench lint docs docs-serve docs-build train eval-trained train-rllib test-rllib lock clean

setup: $(STAMP)

# The lock pins the whole tree that setup installs, with hashes: every extra but rllib (train,
# serve, plot, bench, docs, notebooks, dev, openspiel, torchrl, tianshou), and torch as the CPU
# wheel (a loose torch would fetch a multi-GB CUDA build). Then the project itself, editable and
# without dependencies, built by the locked setuptools and Cython; a kernel's .pyx edited since
# the last install rebuilds it.
KERNELS := $(wildcard card_envs/*/*.pyx card_envs/*/*/*.pyx)
# -qq keeps errors and drops pip's warnings (one per package about the local package folders
# this machine's pip config lists).
PIP := $(BIN)/python -m pip install -qq --disable-pip-version-check

$(STAMP): $(LOCK) pyproject.toml setup.py $(KERNELS)
	@echo "setup [1/3]: a virtual environment in $(VENV) with $(PYTHON) (seconds)"
	$(PYTHON) -m venv $(VENV)
	@echo "setup [2/3]: about 180 locked packages from $(LOCK), torch's CPU wheel among them (5 to 10 minutes on a first run)"
	$(PIP) --require-hashes --no-deps -r $(LOCK)
	@echo "setup [3/3]: card-envs itself, editable, compiling its Cython kernels (1 to 3 minutes)"
# setuptools notes that an editable install mapping agents/ and training/ into card_envs uses an
# import hook, and that same-named folders may take precedence: here they are the package.
	PYTHONWARNINGS="ignore:Editable installation" $(PIP) --no-deps --no-build-isolation -e .
	touch $(STAMP)
	@echo "setup: done ($(BIN)/card-envs --version shows the compiled kernels)"

# Refreshes the locks after a change of the ranges in pyproject.toml, keeping every pin that still
# fits; `make lock UPGRADE=1` moves every package to the newest the ranges allow (then make test).
# requirements/lock.in keeps torch on the CPU wheel, which pip finds in /opt/wheels; the rllib lock
# holds the same versions plus Ray. Takes a few minutes (pip-compile fetches every hash).
LOCK_EXTRAS := train,serve,plot,bench,docs,notebooks,dev,openspiel,torchrl,tianshou
COMPILE := $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --find-links /opt/wheels $(if $(UPGRADE),--upgrade)

lock: $(STAMP)
	$(COMPILE) pyproject.toml requirements/lock.in --extra $(LOCK_EXTRAS) -o $(LOCK)
	$(COMPILE) pyproject.toml requirements/lock.in requirements/lock-rllib.in \
		--extra $(LOCK_EXTRAS),rllib -o requirements/lock-rllib.txt

arena: $(STAMP)
	$(BIN)/card-envs arena --game all

# mypy checks the package as it installs (agents/ and training/ as card_envs.agents and
# card_envs.training): a folder of links under build/ that [tool.mypy] in pyproject.toml names.
MYPY := rm -rf build/typecheck && mkdir -p build/typecheck/card_envs \
	&& (cd build/typecheck/card_envs && ln -s ../../../card_envs/* ../../../agents ../../../training .) \
	&& $(BIN)/mypy

# tests/test_browser.py drives Debian's chromium (never a browser Playwright downloads): installed
# here when missing, as root (CI is root); elsewhere the browser tests skip and say why.
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo "chromium is missing: the browser tests will skip (apt-get install chromium)"

test: $(STAMP) browser
	$(BIN)/ruff check .
	$(MYPY)
	$(BIN)/pytest -n 2 --nbmake tests notebooks
	$(MAKE) --no-print-directory test-wheel

# The wheel as users get it: `python -m build` makes the sdist and, from it, the wheel (once per
# change of the sources), which is installed alone into two fresh virtual environments, with the
# newest dependencies its ranges allow and with each at its lower bound, and smoke-tested from a
# folder outside the tree (scripts/test_wheel.py, scripts/smoke_wheel.py). About two minutes.
DIST := build/dist
BUILT := $(DIST)/.built
SOURCES := $(shell git ls-files card_envs agents training 2>/dev/null) MANIFEST.in

$(BUILT): $(STAMP) pyproject.toml setup.py $(SOURCES)
	rm -rf $(DIST) && mkdir -p $(DIST)
	@echo "test-wheel: building the sdist and the wheel into $(DIST)"
	$(BIN)/python -m build --no-isolation --outdir $(DIST) . > $(DIST)/build.log 2>&1 \
		|| { tail -30 $(DIST)/build.log; exit 1; }
	touch $(BUILT)

test-wheel: $(BUILT)
	@echo "test-wheel: installing the wheel alone into new venvs (newest and lowest dependencies)"
	$(BIN)/python scripts/test_wheel.py $(DIST)/card_envs-*.whl

test-slow: $(STAMP)
	$(BIN)/pytest -n 2 -m slow

test-notebooks: $(STAMP)
	$(BIN)/pytest -n 2 --nbmake notebooks

# Opens the notebooks in JupyterLab, on the .venv kernel (the notebooks extra installs both).
# JupyterLab refuses to run as root (as in many containers) unless allowed.
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP)
	$(BIN)/jupyter lab $(LAB_FLAGS) notebooks

# Measures afresh (about 2 minutes of CPU time, 1 s per figure) and rewrites the shipped tables:
# docs/benchmarks.md, the README's speed table and benchmarks/results/bench.json.
bench: $(STAMP)
	$(BIN)/card-envs bench --seconds 1 --json benchmarks/results/bench.json \
		--markdown docs/benchmarks.md --readme README.md

docs: $(STAMP)
	$(BIN)/card-envs docs

# The documentation site (mkdocs.yml; tests/test_site.py builds it strictly in make test): a
# preview that rebuilds on save, the notebooks run once and then taken from build/mkdocs-jupyter
# until they change; and the site as published, notebooks executed afresh, into build/site.
docs-serve: $(STAMP)
	$(BIN)/mkdocs serve

docs-build: $(STAMP)
	rm -rf build/mkdocs-jupyter
	$(BIN)/mkdocs build --strict

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(MYPY)

train: $(STAMP)
	$(BIN)/card-envs train $(or $(GAME),seamless_v0)

# The quality bar of a shipped trained kind (EVAL_KIND: ppo_advised, or ppo on the games where a
# network alone ships: EVAL_GAME=seers_catalog_v0): 250 deals x 4 seatings = 1,000 games per game,
# the agent alone against three heuristics, then against three random players.
EVAL_KIND ?= ppo_advised
EVAL_GAME ?= all
eval-trained: $(STAMP)
	$(BIN)/card-envs arena --game $(EVAL_GAME) --agents $(EVAL_KIND) heuristic heuristic heuristic \
		--episodes 250 --json benchmarks/results/$(EVAL_KIND)_vs_heuristic.json \
		--plot benchmarks/results/$(EVAL_KIND)_vs_heuristic.png
	$(BIN)/card-envs arena --game $(EVAL_GAME) --agents $(EVAL_KIND) random random random \
		--episodes 250 --json benchmarks/results/$(EVAL_KIND)_vs_random.json \
		--plot benchmarks/results/$(EVAL_KIND)_vs_random.png

# Ray RLlib is an extra (about 450 MB) that setup leaves out, so the default test run skips what
# needs Ray; these two install it on first use. Scaling and clusters: docs/scaling.md.
RLLIB_STAMP := $(VENV)/.installed-rllib

$(RLLIB_STAMP): $(STAMP) requirements/lock-rllib.txt
	@echo "setup: installing Ray RLlib from requirements/lock-rllib.txt (about 450 MB, a few minutes)"
	$(PIP) --require-hashes --no-deps -r requirements/lock-rllib.txt
	touch $(RLLIB_STAMP)

train-rllib: $(RLLIB_STAMP)
	$(BIN)/card-envs train-rllib seamless_v0 --timesteps 40000

test-rllib: $(RLLIB_STAMP)
	$(BIN)/pytest -p no:xdist -m "slow or not slow" tests/test_rllib.py

clean:
	rm -rf $(VENV) build *.egg-info
