"""Regenerate the spec_defects task and group YAML files: ``python tasks/spec_defects/_generate.py``.
The templates (``_*_yaml``, no ``.yaml`` suffix: lm-eval does not index them) are written by hand."""

from pathlib import Path

from specdefects.registry import benchmark_types
from specdefects.vocabulary import benchmark_labels, variant_defect

HERE = Path(__file__).parent
# task suffix -> (the rows' defect label, the task alias lm-eval prints)
VARIANTS = {v: (label, "orig" if v == "orig" else label) for v, label in variant_defect().items()}
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
# A benchmark whose local source holds only the statements' examples as tests (LiveCodeBench's public
# repackaging) reports the public_tests_only metric (1 = so), and its group's alias says what that means
PUBLIC_ONLY = [n for n, b in benchmark_types("spec-defects").items() if b.public_tests_only]
ALIAS_NOTE = {n: " (public_tests_only=1 means public tests only, pass@1 an upper bound)" for n in PUBLIC_ONLY}
EXTRA_AGG = {n: """  - metric: public_tests_only
    aggregation: mean
    weight_by_size: true
""" for n in PUBLIC_ONLY}
# the prompt template of each benchmark: a function to complete, or LiveCodeBench's statement layout
TEMPLATE = {"function": "function", "stdin": "lcb"}


def aggregate(benchmark: str | None = None) -> str:
    """The group's aggregate_metric_list (and metadata), with the benchmark's own extra metrics."""
    head, sep, tail = AGG.partition("metadata:")
    return head + EXTRA_AGG.get(benchmark or "", "") + sep + tail


def main(out: Path = HERE) -> None:
    """Write the YAML files into ``out`` (this folder; a test writes them elsewhere and compares)."""
    for old in out.glob("*.yaml"):
        old.unlink()
    for suffix, style in STYLES.items():
        top = []
        for b, alias in benchmark_labels().items():
            template = f"_{style}_{TEMPLATE[benchmark_types()[b].prompt]}_yaml"
            names = []
            for v, (label, valias) in VARIANTS.items():
                name = f"spec_defects_{b}_{v}{suffix}"
                names.append(name)
                (out / f"{name}.yaml").write_text(
                    f"include: {template}\ntask: {name}\ntask_alias: {valias}\n"
                    f"dataset_kwargs:\n  benchmark: {b}\n  variant: {label}\n")
            group = f"spec_defects_{b}{suffix}"
            top.append(group)
            (out / f"{group}.yaml").write_text(
                f"group: {group}\ngroup_alias: {alias}{' (instruct)' if suffix else ''}{ALIAS_NOTE.get(b, '')}\n"
                f"task:\n" + "".join(f"  - {n}\n" for n in names) + aggregate(b))
        (out / f"spec_defects{suffix}.yaml").write_text(
            f"group: spec_defects{suffix}\ngroup_alias: spec_defects{suffix}\ntask:\n"
            + "".join(f"  - {g}\n" for g in top) + AGG)
        # one variant across the benchmarks (a separate entry point; do not combine with the above)
        for v, (_label, valias) in VARIANTS.items():
            group = f"spec_defects_{v}{suffix}"
            (out / f"{group}.yaml").write_text(
                f"group: {group}\ngroup_alias: {valias}{' (instruct)' if suffix else ''}\ntask:\n"
                + "".join(f"  - spec_defects_{b}_{v}{suffix}\n" for b in benchmark_labels()) + AGG)


if __name__ == "__main__":
    main()
