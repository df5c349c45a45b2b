"""The leaderboard app in a real browser: headless Chromium (Debian's) driven by Playwright.

Starts ``specdefects leaderboard serve`` on 127.0.0.1 (a free port) against a temporary store with
a fixture result and a malformed file, checks the Robustness table's numbers and the warning,
submits a model (and a hostile one) through the form, sees it PENDING in the Queue, runs the worker
once with a stand-in evaluation command, reloads and finds the new row. A screenshot is saved.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

from specdefects.leaderboard import LocalStore
from specdefects.leaderboard.queue import run_queue
from specdefects.leaderboard.results import make_summary

CHROMIUM = os.environ.get("SPECDEFECTS_CHROMIUM", "/usr/bin/chromium")
CLI = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "specdefects"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")
if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
    pytest.skip("Chromium is not installed: run 'sudo apt-get install chromium' (Debian) for the browser test",
                allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(tmp_path):
    from test_leaderboard import RUNNER
    store = LocalStore(tmp_path / "store")
    runner = tmp_path / "fake_eval.py"
    runner.write_text(RUNNER)
    # a fixture result (as the worker writes it) and a malformed file next to it
    out = tmp_path / "fixture-out"
    subprocess.run([sys.executable, str(runner), str(out), "org/fixture-coder"], check=True)
    lmeval = json.loads(next(out.rglob("results_*.json")).read_text())
    lmeval["results"]["spec_defects_humaneval_us"]["pass@1,none"] = 0.423
    summary = make_summary(lmeval, source="evaluated", request={
        "model": "org/fixture-coder", "revision": "main", "precision": "bfloat16", "model_type": "chat",
        "id": "org/fixture-coder/bfloat16-main-1", "params": 7e9})
    store.add_result("org/fixture-coder/bfloat16-main-1", summary)
    bad = tmp_path / "store" / "results" / "broken"
    bad.mkdir()
    (bad / "results_<b>bold.json").write_text('{"results": {"spec_defects_mbpp_orig": ')
    port = _free_port()
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", NO_PROXY="127.0.0.1,localhost")
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen([str(CLI), "leaderboard", "serve", "--store", str(tmp_path / "store"), "--port",
                             str(port)], stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 90
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail("app did not start:\n" + (tmp_path / "server.log").read_text()[-3000:])
            time.sleep(0.5)
    try:
        yield url, store, f"{sys.executable} {runner} {{output}} {{model}}", tmp_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _table_text(page, elem: str, must_contain: str, timeout_s: float = 30, absent: str | None = None) -> str:
    deadline = time.time() + timeout_s
    text = ""
    while time.time() < deadline:
        text = page.locator(elem).inner_text()
        if must_contain in text and (absent is None or absent not in text):
            return text
        time.sleep(0.3)
    raise AssertionError(f"{must_contain!r} not in {elem}: {text[:1500]}")


def _search(page, term: str) -> None:
    box = page.locator("#search textarea, #search input").first
    box.fill(term)
    box.press("Enter")


def test_leaderboard_in_chromium(served):
    url, store, runner, tmp_path = served
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(url, wait_until="domcontentloaded", timeout=60_000)

        # study rows and the fixture row, with the right numbers
        text = _table_text(page, "#robustness-table", "CodeLlama-7B", 60)
        assert "reported in the study" in text
        _search(page, "fixture")
        text = _table_text(page, "#robustness-table", "org/fixture-coder", absent="CodeLlama")
        for value in ("60.0", "42.3", "-17.7", "55.0", "-5.0", "58.0", "-2.0", "evaluated here"):
            assert value in text, (value, text[:800])
        # the malformed file: a visible warning, its name shown as text (no <b> element)
        warn = page.locator("#load-warnings")
        assert "skipped results file" in warn.inner_text() and "<b>bold" in warn.inner_text()
        assert warn.locator("b").count() == 0

        # submit through the form: a hostile one is refused, a good one is queued
        page.get_by_role("tab", name="Submit").click()
        page.locator("#submit-model textarea, #submit-model input").first.fill("org/new-model")
        page.locator("#submit-submitter textarea, #submit-submitter input").first.fill(
            "<img src=x onerror=alert(1)>")
        page.locator("#submit-button").click()
        _table_text(page, "#submit-message", "Not submitted")
        assert page.locator("#submit-message img").count() == 0
        assert store.list_requests() == []
        page.locator("#submit-submitter textarea, #submit-submitter input").first.fill("browser-test")
        page.locator("#submit-button").click()
        _table_text(page, "#submit-message", "PENDING")
        page.get_by_role("tab", name="Queue").click()
        q = _table_text(page, "#queue-table", "org/new-model")
        assert "PENDING" in q and "browser-test" in q

        # the worker runs it; after a reload the new row is there
        assert run_queue(store, runner, once=True, echo=lambda *_: None)[0][1] == "FINISHED"
        page.reload(wait_until="domcontentloaded")
        _table_text(page, "#robustness-table", "CodeLlama-7B", 60)
        _search(page, "new-model")
        text = _table_text(page, "#robustness-table", "org/new-model", absent="CodeLlama")
        assert "60.0" in text and "-10.0" in text and "fixture" not in text
        page.get_by_role("tab", name="Queue").click()
        assert "FINISHED" in _table_text(page, "#queue-table", "FINISHED")
        page.get_by_role("tab", name="Robustness").click()
        _search(page, "")
        _table_text(page, "#robustness-table", "CodeLlama-7B")
        shot = tmp_path / "leaderboard.png"
        page.screenshot(path=str(shot), full_page=True)
        page.get_by_role("tab", name="Drop heatmap").click()
        page.locator("#heatmap img, #heatmap canvas, #heatmap svg").first.wait_for(timeout=30_000)
        page.screenshot(path=str(tmp_path / "heatmap.png"), full_page=True)
        browser.close()
    print(f"\nscreenshots: {shot} {tmp_path / 'heatmap.png'}")
    assert shot.stat().st_size > 10_000
