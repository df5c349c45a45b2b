"""Regenerate the spec_defects task and group YAML files: ``python tasks/spec_defects/_generate.py``.
The templates (``_*_yaml``, no ``.yaml`` suffix: lm-eval does not index them) are written by hand."""

from pathlib import Path

from specdefects.vocabulary import BENCHMARK_LABELS as BENCHMARKS
from specdefects.vocabulary import VARIANT_DEFECT

HERE = Path(__file__).parent
# task suffix -> (the rows' defect label, the task alias lm-eval prints)
VARIANTS = {v: (label, "orig" if v == "orig" else label) for v, label in VARIANT_DEFECT.items()}
STYLES = {"": "completion", "_instruct": "instruct"}
AGG = """aggregate_metric_list:
  - metric: pass@1
    aggregation: mean
    weight_by_size: true
  - metric: pass@10
    aggregation: mean
    weight_by_size: true
metadata:
  version: 1.0
"""


def main() -> None:
    for old in HERE.glob("*.yaml"):
        old.unlink()
    for suffix, style in STYLES.items():
        top = []
        for b, alias in BENCHMARKS.items():
            template = f"_{style}_{'lcb' if b == 'livecodebench' else 'function'}_yaml"
            names = []
            for v, (label, valias) in VARIANTS.items():
                name = f"spec_defects_{b}_{v}{suffix}"
                names.append(name)
                (HERE / f"{name}.yaml").write_text(
                    f"include: {template}\ntask: {name}\ntask_alias: {valias}\n"
                    f"dataset_kwargs:\n  benchmark: {b}\n  variant: {label}\n")
            group = f"spec_defects_{b}{suffix}"
            top.append(group)
            (HERE / f"{group}.yaml").write_text(
                f"group: {group}\ngroup_alias: {alias}{' (instruct)' if suffix else ''}\ntask:\n"
                + "".join(f"  - {n}\n" for n in names) + AGG)
        (HERE / f"spec_defects{suffix}.yaml").write_text(
            f"group: spec_defects{suffix}\ngroup_alias: spec_defects{suffix}\ntask:\n"
            + "".join(f"  - {g}\n" for g in top) + AGG)
        # one variant across the benchmarks (a separate entry point; do not combine with the above)
        for v, (_label, valias) in VARIANTS.items():
            group = f"spec_defects_{v}{suffix}"
            (HERE / f"{group}.yaml").write_text(
                f"group: {group}\ngroup_alias: {valias}{' (instruct)' if suffix else ''}\ntask:\n"
                + "".join(f"  - spec_defects_{b}_{v}{suffix}\n" for b in BENCHMARKS) + AGG)


if __name__ == "__main__":
    main()
