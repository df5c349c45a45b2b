"""The LLM engine's batched loop, the stores of LLM work, `specdefects mutants generate|judge`
and builds that read the stores, against the in-test fake OpenAI server of test_llm.py.
The same steps with a real model are results (results/llm-mutants), not tests."""

import json
import re
import warnings

import pytest
from conftest import SHARED_DATA, needs_shared_data
from test_llm import FakeServer, crafted

from specdefects.builders import build_spec_defects
from specdefects.cli import main
from specdefects.defects import apply_ops, dataset_mutants, llm_engine
from specdefects.defects.llm_runs import generate, judge, rules_skipped
from specdefects.defects.llm_store import JudgeStore, MutantStore, StoreError, sha256_text, stored_path
from specdefects.records import Mutant
from specdefects.sources import load_tasks

HE11 = "HumanEval/95"  # the rule engine makes no US mutant of it (its edge case has a typo: "False is the ..."); the LLM deletes it
US_HE11 = json.dumps({"deleted": "\nThe function should return False is the given dictionary is empty.",
                      "category": "output_edge_case"})
RULES_US = "HumanEval/12"  # the rule engine deletes its edge case ("Return None in case the input list is empty.")


def answers(judge_score=1, us=US_HE11, lv=None, sf=None):
    """A fake model: the engine's prompts by defect, the judge's by its system prompt."""
    def step(body):
        text = body["messages"][-1]["content"]
        if "strict annotator" in body["messages"][0]["content"]:
            return 200, json.dumps({"score": judge_score})
        if "UNDER-SPECIFICATION" in text:
            return 200, us
        if "LEXICAL VAGUENESS" in text:
            return 200, lv or json.dumps({"replacements": [{"old": "numbers", "new": "values"}]})
        return 200, sf or json.dumps({"replacements": [{"old": "positive", "new": "postiive"}]})
    return [step]


@pytest.fixture(scope="module")
def he():
    return {t.task_id: t for t in load_tasks("humaneval")}


def test_batch_accepts_structured_edits_and_rebuilds_them():
    task = crafted()
    with FakeServer(answers(us=json.dumps({"deleted": ", sorted in ascending order", "category": "ordering"}))) as srv:
        outs = llm_engine.mutate_batch([(task, "US"), (task, "LV"), (task, "SF")], client=srv.client())
    assert len(srv.requests) == 3  # one round: every pair in one batch
    us, lv, sf = (o.result for o in outs)
    assert all(isinstance(m, Mutant) and m.engine == "llm" for m in (us, lv, sf)), outs
    assert us.task.description.startswith("Return the sum of the positive numbers in the list.\n")
    assert "values" in lv.task.description and "numbers" not in lv.task.description.split(">>>")[0]
    assert "postiive" in sf.task.description and sf.task.description.count("postiive") == 1
    for m in (us, lv, sf):
        assert apply_ops(task, m.ops) == (m.task.description, m.task.prompt)
        assert [a["reason"] for a in outs[(us, lv, sf).index(m)].attempts] == [""]


def test_batch_retries_only_the_rejected_pairs_and_reports_each_attempt():
    task = crafted()
    bad_then_good = iter([json.dumps({"deleted": "not in the text", "category": "ordering"}),
                          json.dumps({"deleted": ", sorted in ascending order", "category": "ordering"})])
    settled = []
    with FakeServer(answers(us=None)) as srv:
        srv.script = [lambda body: (200, next(bad_then_good)) if "UNDER" in body["messages"][-1]["content"]
                      else answers()[0](body)]
        outs = llm_engine.mutate_batch([(task, "US"), (task, "LV")], client=srv.client(), tries=3,
                                       on_done=settled.append)
    assert [len(o.attempts) for o in outs] == [2, 1] and len(srv.requests) == 3
    assert "not in the description" in outs[0].attempts[0]["reason"] and outs[0].attempts[1]["temperature"] > 0
    assert [o.defect for o in settled] == ["LV", "US"]  # each handed over as soon as it settled


def test_llm_judge_gate_rejects_what_the_judge_calls_non_compliant():
    task = crafted()
    with FakeServer(answers(judge_score=0)) as srv:
        c = srv.client()
        out = llm_engine.mutate_batch([(task, "LV")], client=c, judge=c, tries=2)[0]
    assert not isinstance(out.result, Mutant)
    assert out.result.reason.endswith("llm judge: not compliant") and len(out.attempts) == 2
    with FakeServer(answers(judge_score=1)) as srv:
        c = srv.client()
        m = llm_engine.mutate_batch([(task, "LV")], client=c, judge=c)[0].result
    assert m.judge["llm_compliance"] == 1.0 and m.judge["rules_compliance"] == 1.0


@pytest.mark.parametrize("reply, why", [
    (json.dumps({"deleted": "", "category": "ordering"}), "empty deletion"),
    (json.dumps({"deleted": "the", "category": "ordering"}), "occurs"),
    (json.dumps({"replacements": [{"old": "zebra", "new": "horse"}]}), "not in the description"),
    (json.dumps({"replacements": ["numbers->values"]}), "non-empty list"),
    ('{"score": 1}', "no JSON object"),
])
def test_bad_structured_replies_are_rejected_with_the_reason(reply, why):
    defect = "US" if "deleted" in reply else "LV"
    m, reason = llm_engine.check_candidate(crafted(), defect, reply, 0)
    assert m is None and why in reason, reason


def test_generate_stores_resumes_and_rebuilds(tmp_path, he):
    store = tmp_path / "llm_mutants_humaneval.jsonl"
    pairs = rules_skipped([he[RULES_US], he[HE11]], ["US"], 0)
    assert [t.task_id for t, _ in pairs] == [HE11]  # RULES_US has a rule-made US mutant
    with FakeServer(answers()) as srv:
        c = srv.client()
        first = generate(pairs, c, store, judge_client=c, progress=False)
        n = len(srv.requests)
        again = generate(pairs, c, store, judge_client=c, progress=False)
    assert (first["accepted"], again["asked"], again["already_stored"]) == (1, 0, 1) and len(srv.requests) == n
    rec = json.loads(store.read_text().splitlines()[0])
    assert rec["model"] == "fake-model" and rec["judge_model"] == "fake-model" and rec["status"] == "accepted"
    assert rec["original_sha256"] == sha256_text(he[HE11].description) and rec["prompt_version"]
    assert rec["judge"]["llm_compliance"] == 1 and rec["judge"]["rules_compliance"] == 1
    m = MutantStore(store).rebuild(he[HE11], "US")
    assert isinstance(m, Mutant) and m.engine == "llm" and "1s and 0s" not in m.task.description
    assert m.task.metadata["us_category"] == "output_edge_case"
    changed = he[HE11].with_description(he[HE11].description + " Extra.")
    assert MutantStore(store).rebuild(changed, "US") is None  # never applied to another text


def test_store_damage_is_named_or_survived(tmp_path, he):
    store = tmp_path / "s.jsonl"
    with FakeServer(answers()) as srv:
        generate([(he[HE11], "US")], srv.client(), store, progress=False)
    good = store.read_text()
    store.write_text(good + '{"uid": "humaneval/Hum')  # an interrupted append
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert len(MutantStore(store)) == 1
    assert "truncated last line" in str(w[0].message)
    with FakeServer(answers()) as srv:  # appending after the torn line starts a fresh one
        generate([(he["HumanEval/0"], "US")], srv.client(), store, progress=False)
    assert len(MutantStore(store)) == 2
    store.write_text("not json\n" + good)
    with pytest.raises(StoreError, match=r"s.jsonl:1: not JSON"):
        MutantStore(store)
    rec = json.loads(good)
    rec["description"] = "something else"
    store.write_text(json.dumps(rec) + "\n")
    with pytest.raises(StoreError, match="do not rebuild the stored description"):
        MutantStore(store).rebuild(he[HE11], "US")


def test_build_fills_rule_skips_from_the_store_and_shows_both_judges(tmp_path, he):
    import datasets

    folder = tmp_path / "stored"
    tasks = [he[RULES_US], he[HE11]]
    with FakeServer(answers()) as srv:
        generate([(he[HE11], "US")], srv.client(), stored_path("mutants", "humaneval", folder), progress=False)
        mutants, skipped = dataset_mutants(tasks, ["LV", "US", "SF"], 0, MutantStore(
            stored_path("mutants", "humaneval", folder)))
        judged = judge(mutants, srv.client(), stored_path("judge", "humaneval", folder), progress=False)
    assert judged["judged"] == 6 and not skipped
    assert [m.engine for m in mutants if m.defect == "US"] == ["rules", "llm"]

    out = tmp_path / "build"
    r = build_spec_defects(out, limit=96, llm_store=folder, progress=False)  # HumanEval/0..95
    n_us = r.counts["humaneval"]["US"]
    assert r.engines["humaneval"]["US"] == {"rules": n_us - 1, "llm": 1} and not r.mutator_bugs
    assert any(s.task_id == "HumanEval/9" and s.reason.startswith("rules: ") for s in r.skipped)
    ds = datasets.load_dataset(str(out), "humaneval", split="test")
    us = [row for row in ds if row["task_id"] == HE11 and row["defect"] == 2]
    assert len(us) == 1 and us[0]["engine"] == "llm" and us[0]["invariance"] == "passed"
    assert us[0]["llm_compliance"] == 1 and us[0]["compliance"] == 1
    assert json.loads(us[0]["judge"])["llm_judge_model"] == "fake-model"
    judged_rows = [row for row in ds if row["llm_compliance"] is not None]
    assert {row["task_id"] for row in judged_rows} == {RULES_US, HE11}  # only what was judged
    assert all(row["llm_compliance"] is None for row in ds if row["defect"] == 0)
    card = (out / "README.md").read_text()
    # rule judge | the hand check (on the labelled mutants this build has) | the LLM judge | the study
    assert re.search(rf"\| humaneval \| US \| {n_us} \| {n_us - 1} / 1 \| 100.0 \| 100.0 \| [^|]+\|[^|]+\|[^|]+\| "
                     r"2 \| 100.0 \| 100.0 \| 160 \| 89 \| 81 \|", card), card
    rules_only = build_spec_defects(tmp_path / "rules", limit=96, llm_store=None, progress=False)
    assert rules_only.engines["humaneval"]["US"] == {"rules": n_us - 1}
    assert any(s.task_id == HE11 and s.defect == "US" for s in rules_only.skipped)


def test_judge_store_keys_on_the_mutated_text(tmp_path, he):
    task = he[HE11]
    m = Mutant(original=task, task=task.with_description(task.description.replace(" only", "")), defect="US")
    with FakeServer([(200, '{"score": 0}')]) as srv:
        judge([m], srv.client(), tmp_path / "j.jsonl", progress=False)
    js = JudgeStore(tmp_path / "j.jsonl")
    assert js.get(m)["compliance"] == 0
    other = Mutant(original=task, task=task.with_description(task.description + "!"), defect="US")
    assert js.get(other) is None


def test_mutants_cli_end_to_end_and_bad_input(tmp_path, capsys):
    store, jstore = tmp_path / "m.jsonl", tmp_path / "j.jsonl"
    with FakeServer(answers()) as srv:
        spec = f"openai:{srv.url}@fake-model"
        assert main(["mutants", "generate", "--benchmark", "humaneval", "--task-id", HE11, RULES_US,
                     "--llm", spec, "--judge-llm", "same", "--store", str(store), "--json"]) == 0
        res = json.loads(capsys.readouterr().out)
        assert (res["pairs"], res["accepted"]) == (1, 1)
        assert main(["mutants", "judge", "--benchmark", "humaneval", "--task-id", HE11, "--llm", spec,
                     "--mutants", str(store), "--store", str(jstore), "--json"]) == 0
        res = json.loads(capsys.readouterr().out)
        assert res["judged"] == 3 and res["calls"] == 6
    assert main(["mutants", "generate", "--benchmark", "nope", "--llm", "openai:http://x/v1"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err
    assert main(["mutants", "generate", "--benchmark", "humaneval", "--llm", ""]) == 2
    assert "needs a model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # argparse's refusal, before any task is mutated
        main(["mutants", "judge", "--benchmark", "humaneval", "--task-id", HE11, "--sample", "0",
              "--llm", "openai:http://x/v1", "--store", str(jstore)])
    assert refused.value.code == 2 and "--sample: a whole number of at least 1" in capsys.readouterr().err
    assert main(["build", "spec-defects", "--out", str(tmp_path / "x"), "--llm-store", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("reply, judge_reply, why", [
    ("", '{"score": 1}', "no JSON object"),                                          # an empty answer
    ("I'm sorry, but I can't help with that.", '{"score": 1}', "no JSON object"),   # a refusal
    (json.dumps({"replacements": [{"old": "sum", "new": "sum"}]}), '{"score": 1}', "unchanged"),
    (json.dumps({"description": "Sort the list.\n>>> f([1, 2])\n3"}), '{"score": 1}', "LV rewrote"),  # another task
    (json.dumps({"replacements": [{"old": "numbers", "new": "values"}]}), "yes!!", "no parseable score"),
])
def test_bad_model_answers_end_as_rejected_attempts_with_reasons(tmp_path, reply, judge_reply, why):
    def step(body):
        judging = "strict annotator" in body["messages"][0]["content"]
        return 200, judge_reply if judging else reply
    store = tmp_path / "m.jsonl"
    with FakeServer([step]) as srv:
        c = srv.client()
        res = generate([(crafted(), "LV")], c, store, judge_client=c, tries=2, progress=False)
    rec = json.loads(store.read_text())
    assert res["rejected"] == 1 and rec["status"] == "rejected" and len(rec["attempts"]) == 2
    assert why in rec["reason"] and all(why in a["reason"] for a in rec["attempts"]), rec


def test_the_stores_that_ship_load_and_score_only_the_texts_they_judged(he):
    """The package's stored LLM work is read by every default build: it must parse and be what it
    says (the 1.5B's rejected attempts, each with its reason), and a judge score attaches only to
    the exact text that was judged. The stores were made against the rule engine of 2026-11 (before
    issue 25's engines): a pair the rules now cover is never read, a mutant the engine now writes
    differently gets no LLM score (llm_compliance stays empty) until `specdefects mutants judge`
    is re-run."""
    from specdefects.defects import mutate_many

    store = MutantStore(stored_path("mutants", "humaneval"))
    assert len(store) == 41 and {r["model"] for r in store.records.values()} == {"qwen2.5-coder-1.5b-instruct"}
    assert all(r["status"] == "rejected" and r["reason"] and r["attempts"] for r in store.records.values())
    skipped = {t.task_id for t, _ in rules_skipped(list(he.values()), ["US"], 0)}
    # most of its pairs are still ones the rules skip (28 of 41 with the rule engine of 2026-12-04, which covers a few more)
    assert len(skipped & {uid.split("/", 1)[1] for uid, _ in store.records}) > len(store) // 2
    js = JudgeStore(stored_path("judge", "humaneval"))
    mutants, _ = mutate_many(list(he.values()), ("LV", "US", "SF"), progress=False)
    scored = [m for m in mutants if js.get(m) is not None]
    assert scored and all(js.get(m)["description_sha256"] == sha256_text(m.task.description) for m in scored)
    m = scored[0]
    changed = Mutant(m.original, m.task.with_description(m.task.description + " Also."), m.defect, m.ops)
    assert js.get(changed) is None, "a text the judge never saw must get no score"


@needs_shared_data
def test_the_stored_mbpp_mutant_rebuilds_and_passes_todays_checks():
    mbpp = {t.task_id: t for t in load_tasks("mbpp", str(SHARED_DATA / "mbpp" / "mbpp.jsonl"))}
    store = MutantStore(stored_path("mutants", "mbpp"))
    accepted = [k for k, r in store.records.items() if r["status"] == "accepted"]
    assert len(store) == 576 and accepted == [("mbpp/648", "US")]
    m = store.rebuild(mbpp["648"], "US")
    assert isinstance(m, Mutant) and "every" not in m.task.description and m.judge["llm_compliance"] == 1.0
