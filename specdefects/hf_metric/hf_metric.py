# Copyright the specdefects authors. Apache-2.0.
"""The specdefects ``evaluate`` module: a thin wrapper over :mod:`specdefects.metrics`.

Load it from this folder (evaluate finds ``hf_metric.py`` inside ``hf_metric/``)::

    import evaluate, specdefects.hf_metric as m
    metric = evaluate.load(str(m.METRIC_PATH), config_name="drop")

Configurations (``config_name``): ``pass_at_k`` (the default), ``drop``, ``switching``,
``classification``. All maths lives in :mod:`specdefects.metrics`; this file only maps
evaluate's column inputs to those functions. It imports the installed ``specdefects``
package (evaluate checks that it is importable and otherwise asks to ``pip install``
it), so a copy of this file alone does not work without the package.
"""

import datasets
import evaluate

from specdefects.errors import SpecDefectsInputError
from specdefects.metrics import (
    adherence,
    classification_report,
    drops,
    paired_drops,
    paired_switching,
    pass_at_k_from_results,
)
from specdefects.metrics._checks import as_bool, bool_list
from specdefects.vocabulary import normalize_variant, variants

_CITATION = """\
@article{chen2021codex,
  title   = {Evaluating Large Language Models Trained on Code},
  author  = {Chen, Mark and Tworek, Jerry and Jun, Heewoo and Yuan, Qiming and others},
  journal = {arXiv preprint arXiv:2107.03374},
  year    = {2021}
}
% drop and classification: the defective-task-descriptions study (Table 4, Figure 2, Table 5);
% switching: the "Do code models follow tests?" study (paired switching, Section 4.1).
"""

_DESCRIPTION = """\
Metrics of the specdefects toolkit. `pass_at_k`: the unbiased pass@k estimator of Chen et al.
(2021) from per-sample results. `drop`: pass@1 per description variant (orig / US / LV / SF) and
the absolute and relative drop against the original description, with paired task-bootstrap
intervals. `switching`: the follow-tests paired switching rate and rule adherence with
family-bootstrap intervals. `classification`: defect-detection scores (accuracy, macro
precision / recall / F1, MCC) over the labels clean / LV / US / SF.
"""

_KWARGS_DESCRIPTION = """
Args (by config):
    pass_at_k:
        task_id (list of str): task of each sample (several samples per task allowed).
        passed (list of bool): whether that sample passed its tests.
        k (int or list of int, default [1]): the k values.
    drop:
        task_id (list of str), variant (list of str: orig, US, LV, SF; case-insensitive),
        passed (list of bool): one row per sample (several samples of a task are averaged).
        baseline (str, default "orig"), n_boot (int, default 5000; 0 skips the intervals),
        seed (int, default 0), alpha (float, default 0.05).
    switching:
        instance_id, family_id (list of str), run (list of int), condition (list of str:
        tests_a, tests_b, ...), follows_a, follows_b (list of bool): one row per generation.
        n_boot (int, default 5000), seed (int, default 0), alpha (float, default 0.05).
    classification:
        predictions, references (list of str): predicted and true defect labels.
        labels (list of str, default ["clean", "LV", "US", "SF"]).
Returns:
    pass_at_k: {"pass@1": float, ...} fractions in [0, 1].
    drop: {"pass@1": {variant: fraction}, "n_tasks": {variant: int},
           "abs_drop": {variant: fraction, signed, variant - orig on the variant's tasks},
           "rel_drop_pct": {variant: percent or None}, "abs_drop_unpaired" / "rel_drop_unpaired_pct"
           (against orig over all its tasks: the study's layout), "paired": {variant: {...}}}.
    switching: {"switching": {...}, "adherence_a": {...}, "adherence_b": {...}}, each with
           rate, ci_low, ci_high, per_run, n_instances, n_families, n_boot (fractions).
    classification: {"accuracy", "precision", "recall", "f1", "mcc", "per_class",
           "confusion_matrix", "labels", "n"}.
Examples:
    >>> import evaluate
    >>> m = evaluate.load("path/to/specdefects/hf_metric", config_name="pass_at_k")
    >>> m.compute(task_id=["a", "a", "b", "b"], passed=[True, False, False, False], k=[1, 2])
    {'pass@1': 0.25, 'pass@2': 0.5}
"""

_FEATURES = {
    "pass_at_k": datasets.Features({"task_id": datasets.Value("string"),
                                    "passed": datasets.Value("bool")}),
    "drop": datasets.Features({"task_id": datasets.Value("string"),
                               "variant": datasets.Value("string"),
                               "passed": datasets.Value("bool")}),
    "switching": datasets.Features({"instance_id": datasets.Value("string"),
                                    "family_id": datasets.Value("string"),
                                    "run": datasets.Value("int32"),
                                    "condition": datasets.Value("string"),
                                    "follows_a": datasets.Value("bool"),
                                    "follows_b": datasets.Value("bool")}),
    "classification": datasets.Features({"predictions": datasets.Value("string"),
                                         "references": datasets.Value("string")}),
}
_ALIASES = {"default": "pass_at_k", "pass@k": "pass_at_k", "passk": "pass_at_k", "drops": "drop"}
# String inputs that callers often hold as ints (MBPP task ids, numeric instance ids).
_STRINGIFY = ("task_id", "instance_id", "family_id", "predictions", "references", "variant",
              "condition")
# Outcomes, checked before datasets casts them to bool by truthiness: "False", "no" and "0" (a CSV column read
# as text) counted as passed, and 0.7 as a pass.
_OUTCOMES = ("passed", "follows_a", "follows_b")


def _config(name):
    name = _ALIASES.get(name, name)
    if name not in _FEATURES:
        raise SpecDefectsInputError(f"unknown config_name {name!r}; choose from {', '.join(_FEATURES)}")
    return name


_variant = normalize_variant  # orig/us/lv/sf in any case (and any registered defect)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SpecDefectsMetric(evaluate.Metric):
    """pass@k, pass@1 drops, follow-tests switching and defect-detection scores."""

    def _info(self):
        config = _config(self.config_name)
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES[config],
            reference_urls=["https://arxiv.org/abs/2107.03374"],
        )

    def add_batch(self, **kwargs):
        """Add a batch of rows (ids given as ints are turned into strings; outcomes must be booleans)."""
        for key in _STRINGIFY:
            if kwargs.get(key) is not None:
                kwargs[key] = [v if isinstance(v, str) or v is None else str(v) for v in kwargs[key]]
        for key in _OUTCOMES:
            if kwargs.get(key) is not None:
                kwargs[key] = bool_list(kwargs[key], key)
        return super().add_batch(**kwargs)

    def add(self, **kwargs):
        """Add one row (ids given as ints are turned into strings; outcomes must be booleans)."""
        for key in _STRINGIFY:
            if kwargs.get(key) is not None and not isinstance(kwargs[key], str):
                kwargs[key] = str(kwargs[key])
        for key in _OUTCOMES:
            if key in kwargs:
                kwargs[key] = as_bool(kwargs[key], key)
        return super().add(**kwargs)

    def _compute(self, **kwargs):
        config = _config(self.config_name)
        return getattr(self, f"_compute_{config}")(**kwargs)

    def _compute_pass_at_k(self, task_id, passed, k=(1,)):
        ks = [k] if isinstance(k, int) else list(k)
        if not ks:
            raise SpecDefectsInputError("k must be an int or a non-empty list of ints")
        rows = [{"task_id": t, "passed": p} for t, p in zip(task_id, passed)]
        return {f"pass@{kk}": pass_at_k_from_results(rows, kk) for kk in ks}

    def _compute_drop(self, task_id, variant, passed, baseline="orig", n_boot=5000, seed=0, alpha=0.05):
        baseline = _variant(baseline)
        per_variant = {}
        for t, v, p in zip(task_id, variant, passed):
            per_variant.setdefault(_variant(v), []).append({"task_id": t, "passed": p})
        known = variants()
        unknown = sorted(v for v in per_variant if v not in known)
        if unknown:
            raise SpecDefectsInputError(f"unknown variant(s) {', '.join(map(repr, unknown))}: each row's variant is "
                                        f"one of {', '.join(known)} (case-insensitive)")
        if baseline not in per_variant:
            raise SpecDefectsInputError(f"no rows with the baseline variant {baseline!r} (variants: {sorted(per_variant)})")
        base_tasks = {r["task_id"] for r in per_variant[baseline]}
        for v, rows in per_variant.items():
            missing = sorted({r["task_id"] for r in rows} - base_tasks)
            if missing:
                raise SpecDefectsInputError(f"{len(missing)} task(s) of variant {v!r} have no {baseline!r} row to "
                                            f"compare with (e.g. {missing[0]!r}): every variant task must also "
                                            f"appear under the baseline")
        p1 = {v: pass_at_k_from_results(rows, 1) for v, rows in per_variant.items()}
        unpaired = drops(p1, baseline=baseline)
        order = [baseline] + sorted(v for v in p1 if v != baseline)
        same = {}  # each variant against the baseline on the variant's own tasks
        for v in order[1:]:
            tasks = {r["task_id"] for r in per_variant[v]}
            base_rows = [r for r in per_variant[baseline] if r["task_id"] in tasks]
            if base_rows:
                same[v] = drops({baseline: pass_at_k_from_results(base_rows, 1), v: p1[v]}, baseline=baseline)[v]
        out = {"pass@1": {v: p1[v] for v in order},
               "n_tasks": {v: len({r["task_id"] for r in per_variant[v]}) for v in order},
               "abs_drop": {v: same[v]["abs_drop"] for v in order if v in same},
               "rel_drop_pct": {v: same[v]["rel_drop_pct"] for v in order if v in same},
               "abs_drop_unpaired": {v: unpaired[v]["abs_drop"] for v in order if v in unpaired},
               "rel_drop_unpaired_pct": {v: unpaired[v]["rel_drop_pct"] for v in order if v in unpaired}}
        if n_boot:
            out["paired"] = paired_drops(per_variant, baseline=baseline, n_boot=n_boot, seed=seed, alpha=alpha)
        return out

    def _compute_switching(self, instance_id, family_id, run, condition, follows_a, follows_b,
                           n_boot=5000, seed=0, alpha=0.05):
        rows = [{"instance_id": i, "family_id": f, "run": r, "condition": c, "follows_a": a, "follows_b": b}
                for i, f, r, c, a, b in zip(instance_id, family_id, run, condition, follows_a, follows_b)]
        kw = {"n_boot": n_boot, "seed": seed, "alpha": alpha}
        return {"switching": paired_switching(rows, **kw),
                "adherence_a": adherence(rows, "tests_a", "A", **kw),
                "adherence_b": adherence(rows, "tests_b", "B", **kw)}

    def _compute_classification(self, predictions, references, labels=None):
        return classification_report(references, predictions, labels=labels)
