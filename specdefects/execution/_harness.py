"""Function-test harness: the program the sandbox runs for a function-call task.

Stdlib only; runs inside the sandbox as ``__main__``.  It reads a JSON payload from
stdin (the nonce first, before any candidate code runs), replaces stdin by an empty
stream, runs the candidate program, then

* ``cases``: calls the entry point (or ``Solution().<entry_point>``) on each decoded
  argument list and reports the return value as *Python literal text* (exact builtin
  types only: an object with a forged ``__eq__`` cannot be reported, so it fails) and the
  call's seconds; the comparison with the expected value is done by the parent, not here.
  With ``case_timeouts`` (EvalPlus-style per-input limits) a call that runs past its limit
  is interrupted (``SIGALRM``), reported as timed out, and no further case runs;
* ``test_code``: runs the assert-style test in a copy of the candidate's globals where
  the entry point is wrapped so that a return value not made only of builtin plain
  types fails, with builtins (and a few stdlib modules) restored to their state
  before the candidate ran.

Everything is reported on fd 3 as JSON lines; the last one, ``{"done": nonce}``, is
written only when the harness itself got to the end.  ``sys.exit``/``os._exit`` in
the candidate therefore cannot pass.  The candidate can reach this module (``import
__main__``): the payload is read and the helpers used after its code ran are bound
before it runs, the function that writes the last line is in no module global (only in
``_main``'s frame), and this module's globals are restored with the stdlib modules'.
(A candidate that deliberately walks the interpreter's frames or the garbage collector
for that function or the nonce, or rewrites the harness's function objects, is outside
what an in-process check can stop: the sandbox keeps such a program from the host, not
from its own score.)
"""
import ast as _ast
import builtins as _builtins
import collections as _collections
import decimal as _decimal
import fractions as _fractions
import json as _json
import os as _os
import signal as _signal
import sys as _sys
import time as _time
import traceback as _traceback

# EvalPlus inputs and outputs include integers of more than 4,300 digits; the default
# cap on int<->str conversion would turn correct programs into errors.
if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)


def _make():
    payload = _json.loads(_sys.stdin.read())
    nonce = payload.pop("nonce")
    dn = _os.open(_os.devnull, _os.O_RDONLY)
    _os.dup2(dn, 0)
    _os.close(dn)
    rep = open(3, "w", encoding="utf-8", closefd=False)
    write, flush, dumps = rep.write, rep.flush, _json.dumps

    def emit(obj):
        write(dumps(obj) + "\n")
        flush()

    def done():
        emit({"done": nonce})

    return payload, emit, done


_PAYLOAD, _emit, _done = _make()
del _make

# ----------------------------------------------------------------- literal values
_PLAIN_SCALARS = (int, float, str, bool, type(None), bytes, complex)


def _encode(v, depth=0):
    t = type(v)
    if depth > 200:
        raise TypeError("value nested too deeply")
    if t is int and v.bit_length() > 4096:
        return hex(v)  # decimal conversion of huge ints is quadratic; hex is linear
    if t is bool or v is None or t is int or t is str or t is bytes:
        return repr(v)
    if t is float:
        if v != v:
            return "float('nan')"
        if v in (float("inf"), float("-inf")):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if t is complex:
        return "complex(%s, %s)" % (_encode(v.real, depth + 1), _encode(v.imag, depth + 1))
    if t is list:
        return "[" + ", ".join(_encode(x, depth + 1) for x in v) + "]"
    if t is tuple:
        inner = ", ".join(_encode(x, depth + 1) for x in v)
        return "(%s,)" % inner if len(v) == 1 else "(%s)" % inner
    if t is set or t is frozenset:
        if not v:
            return "set()" if t is set else "frozenset()"
        body = "{" + ", ".join(sorted(_encode(x, depth + 1) for x in v)) + "}"
        return body if t is set else "frozenset(%s)" % body
    if t is dict or t in _DICTS:  # stdlib dict subclasses (defaultdict, Counter...) compare as dicts
        return "{" + ", ".join("%s: %s" % (_encode(k, depth + 1), _encode(x, depth + 1)) for k, x in v.items()) + "}"
    raise TypeError("return value of type %s is not a plain builtin value" % t.__name__)


# type objects captured before the candidate runs: identity checks, so a candidate class
# that merely claims ``__module__ = "collections"`` is still refused
_DICTS = (dict, _collections.defaultdict, _collections.OrderedDict, _collections.Counter)
_SEQS = (list, tuple, set, frozenset, _collections.deque)
_SCALARS = _PLAIN_SCALARS + (_fractions.Fraction, _decimal.Decimal, range)
_ITERS = tuple({type(x) for x in (map(int, ()), filter(None, ()), zip(), enumerate(()), reversed([]), iter([]),
                                  iter(()), (i for i in ()), iter(range(0)), iter({}), iter(set()), iter(""),
                                  {}.keys(), {}.values(), {}.items())})


def _plain(v, scalars=_SCALARS, seqs=_SEQS, dicts=_DICTS):
    """Whether ``v`` is made only of plain builtin values (no global lookups: the candidate's
    entry point may have rebound this module's names before returning ``v``)."""
    todo = [(v, 0)]
    while todo:
        x, depth = todo.pop()
        t = type(x)
        if t in scalars:
            continue
        if depth > 200:
            return False
        if t in seqs:
            todo.extend((y, depth + 1) for y in x)
        elif t in dicts:
            for k, y in x.items():
                todo.append((k, depth + 1))
                todo.append((y, depth + 1))
        else:
            return False
    return True


def _checked_iter(it, violations, plain=_plain):
    for x in it:
        if not plain(x):
            violations.append(type(x).__name__)
            raise AssertionError("entry point yielded a non-plain %s" % type(x).__name__)
        yield x


_SAFE_CALLS = {"float", "complex", "set", "frozenset"}


def _decode(node):
    """Same grammar as specdefects.records.decode_value (copied: no imports in here)."""
    if isinstance(node, _ast.Constant):
        return node.value
    if isinstance(node, _ast.UnaryOp) and isinstance(node.op, (_ast.USub, _ast.UAdd)):
        v = _decode(node.operand)
        if not isinstance(v, (int, float, complex)) or isinstance(v, bool):
            raise ValueError("bad unary operand")
        return -v if isinstance(node.op, _ast.USub) else +v
    if isinstance(node, _ast.BinOp) and isinstance(node.op, (_ast.Add, _ast.Sub)):
        left, right = _decode(node.left), _decode(node.right)
        if isinstance(right, complex) and isinstance(left, (int, float)):
            return left + right if isinstance(node.op, _ast.Add) else left - right
        raise ValueError("arithmetic is not a literal")
    if isinstance(node, _ast.List):
        return [_decode(x) for x in node.elts]
    if isinstance(node, _ast.Tuple):
        return tuple(_decode(x) for x in node.elts)
    if isinstance(node, _ast.Set):
        return {_decode(x) for x in node.elts}
    if isinstance(node, _ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("dict unpacking is not a literal")
        return {_decode(k): _decode(v) for k, v in zip(node.keys, node.values)}
    if (isinstance(node, _ast.Call) and isinstance(node.func, _ast.Name)
            and node.func.id in _SAFE_CALLS and not node.keywords):
        args = [_decode(a) for a in node.args]
        name = node.func.id
        if name == "float" and len(args) == 1 and isinstance(args[0], str):
            return float(args[0])
        if name == "complex" and len(args) == 2:
            return complex(*args)
        if name in ("set", "frozenset") and len(args) <= 1:
            if name == "set":
                return set(args[0]) if args else set()
            return frozenset(args[0]) if args else frozenset()
    raise ValueError("not a plain literal: %s" % type(node).__name__)


def _decode_text(text):
    return _decode(_ast.parse(text.strip(), mode="eval").body)


def _short_exc(e):
    s = "%s: %s" % (type(e).__name__, e)
    return s[:300]


# ----------------------------------------------------------------- snapshots
_RESTORE_MODULES = ("builtins", "math", "operator", "functools", "itertools", "collections", "re", "string",
                    "sys", "os", "copy", "heapq", "json", "random", "statistics", "typing",
                    "__main__")  # this harness: the candidate can import it


def _snapshot():
    snap = {}
    for name in _RESTORE_MODULES:
        m = _sys.modules.get(name)
        if m is not None:
            snap[name] = (m, dict(m.__dict__))
    return snap, dict(_sys.modules)


def _restore(snaps):
    snap, mods = snaps
    for _name, (m, d) in snap.items():
        md = m.__dict__
        for k, v in d.items():
            if md.get(k, _restore) is not v:
                try:
                    setattr(m, k, v)
                except Exception:
                    pass
        for k in [k for k in md if k not in d and type(md[k]) is not type(_sys)]:
            try:
                delattr(m, k)
            except Exception:
                pass
    for k, v in mods.items():
        if _sys.modules.get(k) is not v:
            _sys.modules[k] = v
    _sys.settrace(None)
    _sys.setprofile(None)


def _failed_line(tb, source, filename):
    lines = source.splitlines()
    lineno = None
    for fr, ln in _traceback.walk_tb(tb):
        if fr.f_code.co_filename == filename:
            lineno = ln
    if lineno is None or not (1 <= lineno <= len(lines)):
        return ""
    return lines[lineno - 1].strip()[:300]


# ----------------------------------------------------------------- main
# Each step binds, before any candidate code runs, every harness name it uses afterwards.

def _load_candidate(program, snaps, restore=_restore, emit=_emit, short=_short_exc):
    """Run the program in its own globals; ``None`` (reported) when it does not load."""
    cand = {"__name__": "__candidate__", "__builtins__": _builtins}
    try:
        code = compile(program, "solution.py", "exec", dont_inherit=True)
    except BaseException as e:
        emit({"load_error": short(e), "kind": "syntax"})
        return None
    try:
        exec(code, cand)  # sandbox-ok: runs inside the sandbox child
    except SystemExit as e:
        emit({"load_error": "program exited (SystemExit %r) before the tests ran" % (e.code,), "kind": "exit"})
        return None
    except BaseException as e:
        emit({"load_error": short(e), "kind": "exception"})
        return None
    restore(snaps)
    return cand


class _CaseTimeout(BaseException):
    """Raised into the candidate's call when it runs past its case's time limit."""


def _raise_case_timeout(signum, frame, exc=_CaseTimeout):
    raise exc()


def _timed_call(f, args, limit, clock=_time.perf_counter, setitimer=_signal.setitimer, signal=_signal.signal,
                sigalrm=_signal.SIGALRM, itimer=_signal.ITIMER_REAL, on_alarm=_raise_case_timeout):
    """``(f(*args), seconds)``; with a ``limit`` (seconds) a ``SIGALRM`` interrupts the call then."""
    if limit:
        signal(sigalrm, on_alarm)
        setitimer(itimer, limit)
    t0 = clock()
    try:
        return f(*args), clock() - t0
    finally:
        if limit:
            setitimer(itimer, 0)


def _run_cases(cases, cand, ep, snaps, limits=()):
    """Report the entry point's value and seconds on each case; False (reported) when there is no
    entry point or a case ran past its time limit (``limits[i]``: seconds, or none)."""
    restore, emit, short, decode, encode = _restore, _emit, _short_exc, _decode_text, _encode
    timed_call, timeout_exc, clock = _timed_call, _CaseTimeout, _time.perf_counter
    fn = cand.get(ep) if ep else None
    use_class = not callable(fn) and isinstance(cand.get("Solution"), type) and hasattr(cand["Solution"], ep)
    if not callable(fn) and not use_class:
        emit({"load_error": "entry point %r is not defined" % ep, "kind": "missing"})
        return False
    for i, text in enumerate(cases):
        try:
            args = decode(text)
        except BaseException as e:
            emit({"i": i, "error": "bad test input: " + short(e), "harness": True})
            continue
        if not isinstance(args, (list, tuple)):
            args = [args]
        limit = limits[i] if i < len(limits) else None
        t0 = clock()
        try:
            f = getattr(cand["Solution"](), ep) if use_class else fn
            out, took = timed_call(f, args, limit)
            restore(snaps)
            enc = encode(out)
        except timeout_exc:
            restore(snaps)
            emit({"i": i, "timeout": limit, "s": clock() - t0})
            return False
        except BaseException as e:
            restore(snaps)
            emit({"i": i, "error": short(e), "memory": isinstance(e, MemoryError), "s": clock() - t0})
            continue
        emit({"i": i, "out": enc, "s": took})
    return True


def _guard(target, violations, plain=_plain, iters=_ITERS, checked_iter=_checked_iter):
    """``target`` wrapped so that a value not made only of plain builtins fails the test."""
    def _guarded(*a, **k):
        r = target(*a, **k)
        if type(r) in iters:
            return checked_iter(r, violations, plain)
        if not plain(r):
            violations.append(type(r).__name__)
            raise AssertionError("entry point returned a non-plain %s" % type(r).__name__)
        return r
    return _guarded


def _run_test_code(test_code, cand, ep, snaps):
    """Run the assert-style test against the guarded entry point; False (reported) when it fails."""
    restore, emit, short, failed_line = _restore, _emit, _short_exc, _failed_line
    violations = []
    tg = dict(cand)
    tg["__name__"] = "__test__"
    tg["__builtins__"] = _builtins
    target = cand.get(ep) if ep else None
    if callable(target):
        tg[ep] = _guard(target, violations)
    try:
        tcode = compile(test_code, "test.py", "exec", dont_inherit=True)
    except BaseException as e:
        emit({"test_error": "test code does not compile: " + short(e), "harness": True})
        return False
    try:
        exec(tcode, tg)  # sandbox-ok: runs inside the sandbox child
    except AssertionError as e:
        restore(snaps)
        line = failed_line(e.__traceback__, test_code, "test.py")
        if violations:
            line = "entry point returned a non-plain %s" % violations[0]
        emit({"assert_failed": line or short(e)})
        return False
    except SystemExit as e:
        emit({"test_error": "exited (SystemExit %r) during the tests" % (e.code,)})
        return False
    except BaseException as e:
        restore(snaps)
        emit({"test_error": short(e), "line": failed_line(e.__traceback__, test_code, "test.py"),
              "memory": isinstance(e, MemoryError)})
        return False
    restore(snaps)
    if violations:
        emit({"assert_failed": "entry point returned a non-plain %s" % violations[0]})
        return False
    return True


def _main(done):
    P = _PAYLOAD
    ep, program = P.get("entry_point") or "", P["program"]
    cases, test_code = tuple(P.get("cases") or ()), P.get("test_code") or ""
    case_timeouts = tuple(P.get("case_timeouts") or ())
    run_cases, run_test_code = _run_cases, _run_test_code
    snaps = _snapshot()
    cand = _load_candidate(program, snaps)
    if cand is None:
        return
    if cases and not run_cases(cases, cand, ep, snaps, case_timeouts):
        return
    if test_code.strip() and not run_test_code(test_code, cand, ep, snaps):
        return
    done()


# ``done`` leaves the module's namespace before any candidate code runs: ``__main__._done()`` is no way to pass
_main(globals().pop("_done"))
