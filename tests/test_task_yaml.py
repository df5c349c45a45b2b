"""The lm-eval task YAML under tasks/ is what its generator writes from the registry today: a defect or
benchmark added (or renamed) without `python tasks/<group>/_generate.py` fails here, naming the files."""

import importlib.util
import shutil
from pathlib import Path

import pytest

TASKS = Path(__file__).resolve().parents[1] / "tasks"
HAND_WRITTEN = {"spec_follow_tests_paired.yaml"}  # the paired task's YAML is not generated


def _generator(group: str):
    spec = importlib.util.spec_from_file_location(f"_generate_{group}", TASKS / group / "_generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def differences(group: str, folder: Path, scratch: Path) -> list[str]:
    """What ``folder`` holds that the generator of ``group`` would not write, lacks, or writes otherwise."""
    _generator(group).main(scratch)
    written = {p.name: p.read_text() for p in scratch.glob("*.yaml")}
    committed = {p.name: p.read_text() for p in folder.glob("*.yaml") if p.name not in HAND_WRITTEN}
    assert written, "the generator wrote nothing"
    return ([f"missing: {n}" for n in sorted(set(written) - set(committed))]
            + [f"stale: {n}" for n in sorted(set(committed) - set(written))]
            + [f"out of date: {n}" for n in sorted(set(written) & set(committed)) if written[n] != committed[n]])


@pytest.mark.parametrize("group", ["spec_defects", "spec_follow_tests"])
def test_the_committed_task_yaml_is_what_the_generator_writes(group, tmp_path):
    assert differences(group, TASKS / group, tmp_path) == [], f"run: python tasks/{group}/_generate.py"


def test_the_check_names_a_changed_a_missing_and_a_stale_file(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(TASKS / "spec_defects", copy)
    (copy / "spec_defects_humaneval_lv.yaml").write_text("task: renamed\n")
    (copy / "spec_defects_mbpp_us.yaml").unlink()
    (copy / "spec_defects_apps_us.yaml").write_text("task: gone\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert differences("spec_defects", copy, scratch) == [
        "missing: spec_defects_mbpp_us.yaml", "stale: spec_defects_apps_us.yaml",
        "out of date: spec_defects_humaneval_lv.yaml"]
