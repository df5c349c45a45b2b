"""Regenerate the spec_follow_tests task and group YAML files: ``python tasks/spec_follow_tests/_generate.py``.
The template ``_heldout_yaml`` and the paired task are written by hand."""

from pathlib import Path

from specdefects.vocabulary import (
    CONTROL_CONDITIONS,
    FOLLOW_GROUP,
    MATCHED_CONDITIONS,
    QUALITY_SUITES,
    follow_benchmark_labels,
)

HERE = Path(__file__).parent
# group aliases: the benchmarks' labels; LiveCodeBench is its problems after 2025-01-01 (v6-new)
BENCHMARKS = {b: label + (" v6-new" if b == "livecodebench" else "") for b, label in follow_benchmark_labels().items()}
CONDITIONS = MATCHED_CONDITIONS
CONTROLS = CONTROL_CONDITIONS
SUITES = QUALITY_SUITES
PAIRED = f"{FOLLOW_GROUP}_paired"


def _per_benchmark(out: Path, config: str, conditions, loader: str, alias_suffix: str, group_alias: str) -> None:
    """One task per benchmark x condition of ``config``, a group per benchmark, and the config's group."""
    subgroups = []
    for b, alias in BENCHMARKS.items():
        names = []
        for c in conditions:
            name = f"spec_follow_tests_{config}_{b}_{c}"
            names.append(name)
            (out / f"{name}.yaml").write_text(
                f"include: _heldout_yaml\ntask: {name}\ntask_alias: {c}\n"
                f"custom_dataset: !function {loader}\n"
                f"dataset_kwargs:\n  benchmark: {b}\n  condition: {c}\n")
        group = f"spec_follow_tests_{config}_{b}"
        subgroups.append(group)
        (out / f"{group}.yaml").write_text(f"group: {group}\ngroup_alias: {alias}{alias_suffix}\ntask:\n"
                                            + "".join(f"  - {n}\n" for n in names))
    (out / f"spec_follow_tests_{config}.yaml").write_text(
        f"group: spec_follow_tests_{config}\ngroup_alias: {group_alias}\ntask:\n"
        + "".join(f"  - {g}\n" for g in subgroups))


def main(out: Path = HERE) -> None:
    """Write the YAML files into ``out`` (this folder; a test writes them elsewhere and compares)."""
    for old in out.glob("*.yaml"):
        if old.name != f"{PAIRED}.yaml":
            old.unlink()
    _per_benchmark(out, "matched", CONDITIONS, "utils.load_matched", "", "matched prompts")
    _per_benchmark(out, "controls", CONTROLS, "utils.load_controls", " controls", "control prompts")
    names = []
    for s in SUITES:
        name = f"spec_follow_tests_quality_{s}"
        names.append(name)
        (out / f"{name}.yaml").write_text(
            f"include: _heldout_yaml\ntask: {name}\ntask_alias: {s}-detection suite\n"
            f"custom_dataset: !function utils.load_quality\ndataset_kwargs:\n  suite: {s}\n")
    (out / "spec_follow_tests_quality.yaml").write_text(
        "group: spec_follow_tests_quality\ngroup_alias: test-suite quality\ntask:\n"
        + "".join(f"  - {n}\n" for n in names))
    (out / "spec_follow_tests.yaml").write_text(
        "group: spec_follow_tests\ngroup_alias: spec_follow_tests\ntask:\n"
        f"  - {PAIRED}\n  - spec_follow_tests_matched\n  - spec_follow_tests_controls\n"
        "  - spec_follow_tests_quality\n")


if __name__ == "__main__":
    main()
