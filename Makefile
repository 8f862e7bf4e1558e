# Two commands for a fresh machine: `make arena` (the main job) and `make test`.
# Both create .venv and install everything pinned in pyproject.toml on first use.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup browser arena test test-slow test-notebooks lab bench lint docs train eval-trained train-rllib test-rllib clean

setup: $(STAMP)

# torch first, pinned to the CPU wheel: a looser requirement would fetch a multi-GB CUDA build.
# A kernel's .pyx edited since the last install rebuilds the install, which compiles it (setup.py).
KERNELS := $(wildcard card_envs/*/*.pyx card_envs/*/*/*.pyx)

$(STAMP): pyproject.toml setup.py $(KERNELS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[train,dev,notebooks,bench,serve]"
	touch $(STAMP)

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

$(RLLIB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[rllib]"
	touch $(RLLIB_STAMP)

train-rllib: $(RLLIB_STAMP)
	$(BIN)/card-envs train-rllib seamless_v0 --timesteps 40000

test-rllib: $(RLLIB_STAMP)
	$(BIN)/pytest -p no:xdist -m "slow or not slow" tests/test_rllib.py

clean:
	rm -rf $(VENV) build *.egg-info
