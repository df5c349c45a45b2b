"""Evaluation requests: one validated JSON record per submitted model.

The CLI (``specdefects leaderboard submit``) and the Space's Submit tab both call
:func:`make_request`; nothing reaches a store before it passes :func:`validate_request`.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata

from ..errors import SpecDefectsInputError, SpecDefectsRuntimeError
from ..hub import HubError, check_repo_id

MODEL_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$", re.ASCII)
# a commit sha, or a branch/tag name (git check-ref-format, simplified)
REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")
PRECISIONS = ("bfloat16", "float16", "float32", "8bit", "4bit")
MODEL_TYPES = ("pretrained", "instruction-tuned", "chat", "fine-tuned", "api", "other")
BACKENDS = ("vllm", "hf", "specdefects-reference")
STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")
ACTIVE = ("PENDING", "RUNNING", "FINISHED")  # a duplicate of one of these is refused
MAX_MODEL_ID = 96 * 2 + 1
MAX_TEXT = 200
SCHEMA = "specdefects-leaderboard-request/1"


class SubmissionError(SpecDefectsInputError):
    """A submission refused before anything is stored; the message says why, in one line."""


class HubUnreachable(SpecDefectsRuntimeError):
    """The Hub could not answer now (no connection, a timeout, offline mode, HTTP 429 or 5xx): says
    nothing about the model, so the queue keeps its request PENDING and tries again later."""


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _text(name: str, value, *, max_len: int = MAX_TEXT, allow_empty: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise SubmissionError(f"{name} must be text")
    if len(value) > max_len:
        raise SubmissionError(f"{name} is too long ({len(value)} characters; at most {max_len})")
    value = value.strip()
    if not value and not allow_empty:
        raise SubmissionError(f"{name} is required")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in value):
        raise SubmissionError(f"{name} contains control characters")
    if re.search(r"[<>]|javascript:|&#|on\w+\s*=", value, re.I):
        raise SubmissionError(f"{name} must not contain HTML or script ('<', '>', 'javascript:', 'on...=')")
    return value


HUB_PREFIXES = ("https://huggingface.co/", "http://huggingface.co/", "huggingface.co/", "https://hf.co/", "hf.co/")


def normalize_model_id(model) -> str:
    """The id a model is known by on the Hub: stripped, Unicode NFKC (full-width letters become
    ASCII), a pasted ``https://huggingface.co/`` prefix and a trailing ``/`` dropped."""
    model = unicodedata.normalize("NFKC", _text("model", model, max_len=MAX_MODEL_ID, allow_empty=False))
    prefix = next((p for p in HUB_PREFIXES if model.lower().startswith(p)), "")
    return model[len(prefix):].strip().rstrip("/")


def check_model_id(model) -> str:
    """A Hub model id ``ORG/NAME`` (normalised: :func:`normalize_model_id`) as the Hub accepts it: ASCII
    letters, digits, '-', '_', '.', each part at most 96 characters (``hub.check_repo_id``); a
    look-alike letter from another script is refused by name."""
    model = normalize_model_id(model)
    odd = next((c for c in model if not c.isascii()), None)
    if odd is not None:
        raise SubmissionError(f"invalid model id {model!r}: {odd!r} (U+{ord(odd):04X} "
                              f"{unicodedata.name(odd, 'unnamed character')}) is not ASCII; Hub ids are ASCII "
                              f"letters, digits, '-', '_', '.'")
    try:
        return check_repo_id(model)
    except HubError:
        raise SubmissionError(f"invalid model id {model!r}: expected ORG/NAME on the Hub (ASCII letters, digits, "
                              f"'-', '_', '.'; no '--' or '..'; at most 96 characters each), "
                              f"e.g. Qwen/Qwen2.5-Coder-7B-Instruct") from None


def check_revision(revision) -> str:
    revision = _text("revision", revision, max_len=100) or "main"
    if not REVISION.match(revision) or ".." in revision or "//" in revision or revision.endswith(("/", ".lock")) \
            or "@{" in revision:
        raise SubmissionError(f"invalid revision {revision!r}: expected a commit sha or a branch/tag name")
    return revision


def validate_request(req: dict) -> dict:
    """A clean copy of ``req`` or :class:`SubmissionError`."""
    if not isinstance(req, dict):
        raise SubmissionError("a request is a JSON object")
    out = dict(req)
    out["model"] = check_model_id(req.get("model"))
    out["revision"] = check_revision(req.get("revision"))
    for key, default, choices in (("precision", "bfloat16", PRECISIONS), ("model_type", "pretrained", MODEL_TYPES),
                                  ("backend", "vllm", BACKENDS)):
        out[key] = req.get(key) or default
        if out[key] not in choices:
            raise SubmissionError(f"unknown {key.replace('_', ' ')} {str(out[key])[:40]!r}; "
                                  f"choose from {', '.join(choices)}")
    if not isinstance(req.get("chat_template", False), bool):
        raise SubmissionError("chat_template must be true or false")
    out.update(chat_template=bool(req.get("chat_template", False)),
               submitter=_text("submitter", req.get("submitter"), max_len=100) or "anonymous",
               status=req.get("status") or "PENDING")
    if out["status"] not in STATUSES:
        raise SubmissionError(f"unknown status {out['status']!r}")
    return out


def request_key(req: dict) -> tuple[str, str, str]:
    """What makes two requests the same: the model (the Hub's ids ignore case), revision and precision."""
    return (req["model"].lower(), req.get("revision") or "main", req.get("precision") or "bfloat16")


def request_id(req: dict) -> str:
    """``ORG/NAME/PRECISION-REVISION-TIMESTAMP``: a safe relative path (validated parts only)."""
    rev = re.sub(r"[^\w.-]", "_", req["revision"])[:60]
    stamp = re.sub(r"[^0-9]", "", req["submitted_time"])[:20]
    return f"{req['model']}/{req['precision']}-{rev}-{stamp}"


def make_request(model, revision=None, precision="bfloat16", model_type="pretrained", chat_template=False,
                 submitter="anonymous", backend="vllm") -> dict:
    """A validated PENDING request (not stored yet: see ``LeaderboardStore.submit``)."""
    req = validate_request({"model": model, "revision": revision, "precision": precision,
                            "model_type": model_type, "chat_template": chat_template,
                            "submitter": submitter, "backend": backend})
    req.update(schema=SCHEMA, status="PENDING", submitted_time=now_iso())
    req["id"] = request_id(req)
    return req


def duplicate_of(req: dict, existing: list[dict]) -> dict | None:
    key = request_key(req)
    for r in existing:
        try:
            if request_key(r) == key and r.get("status") in ACTIVE:
                return r
        except (KeyError, TypeError):
            continue
    return None


def duplicate_message(req: dict, dup: dict) -> str:
    return (f"{req['model']} at revision {req['revision']} in {req['precision']} is already "
            f"{str(dup.get('status')).lower()} (request {dup.get('id')}); resubmit only after it failed")


def hub_check_error(model: str, revision: str, e: Exception) -> SpecDefectsRuntimeError | SubmissionError:
    """What a failed ``model_info`` says about the model: :class:`SubmissionError` (the request fails
    for good) only when the Hub answered that the repo or revision does not exist (HTTP 404; a private
    repo answers the same), is gated, or that the request was bad; :class:`HubUnreachable` when it
    could not answer (connection refused, DNS, TLS, a timeout, offline mode, HTTP 429 or 5xx)."""
    from huggingface_hub.errors import (  # lazy: as in check_model_on_hub
        GatedRepoError,
        HfHubHTTPError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    first = (str(e).strip().splitlines() or [""])[0][:300] or type(e).__name__
    status = getattr(getattr(e, "response", None), "status_code", None)
    where = f"model {model} (revision {revision})"
    if isinstance(e, GatedRepoError):
        return SubmissionError(f"{where} is gated on the Hub: the worker's token has not been granted access "
                               f"({first})")
    if isinstance(e, RevisionNotFoundError):
        return SubmissionError(f"{where}: revision {revision} not found on the Hub ({first})")
    if isinstance(e, RepositoryNotFoundError) or status == 404:
        return SubmissionError(f"{where} not found on the Hub (or private): {first}")
    if isinstance(e, HfHubHTTPError) and isinstance(status, int) and 400 <= status < 500 and status not in (
            401, 403, 408, 429):
        return SubmissionError(f"{where}: the Hub refused the check: HTTP {status}: {first}")
    if isinstance(e, ValueError) and not isinstance(e, HfHubHTTPError):  # an id the Hub client refuses itself
        return SubmissionError(f"{where}: {first}")
    code = f"HTTP {status}" if status else type(e).__name__
    return HubUnreachable(f"cannot check {where} on the Hub now ({code}: {first}); the request stays PENDING "
                          f"and is tried again later")


def check_model_on_hub(model: str, revision: str = "main", *, api=None, max_params: float = 80e9,
                       require_license: bool = True) -> dict:
    """What the worker checks before running a Hub model: it exists (at ``revision``), has a licence
    and at most ``max_params`` parameters. Returns {license, params, sha}; raises SubmissionError, or
    :class:`HubUnreachable` when the Hub could not be asked (:func:`hub_check_error`)."""
    if api is None:
        from huggingface_hub import HfApi  # lazy: slow to import; only the queue worker's check needs it
        api = HfApi()
    try:
        info = api.model_info(model, revision=None if revision == "main" else revision)
    except Exception as e:
        raise hub_check_error(model, revision, e) from None
    card = getattr(info, "card_data", None) or {}
    lic = card.get("license") if hasattr(card, "get") else getattr(card, "license", None)
    if not lic:
        lic = next((t.split(":", 1)[1] for t in (getattr(info, "tags", None) or []) if t.startswith("license:")),
                   None)
    if require_license and not lic:
        raise SubmissionError(f"model {model} declares no licence (add `license:` to its model card)")
    params = None
    st = getattr(info, "safetensors", None)
    if st is not None:
        params = getattr(st, "total", None) if not isinstance(st, dict) else st.get("total")
    if params and params > max_params:
        raise SubmissionError(f"model {model} has {params / 1e9:.1f}B parameters; this leaderboard runs at most "
                              f"{max_params / 1e9:.0f}B")
    return {"license": lic, "params": params, "sha": getattr(info, "sha", None)}
