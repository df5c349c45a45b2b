"""Metadata lives in setup.cfg. This file only puts the lm-eval task YAML (the repository's
top-level ``tasks/``, kept there as the design's layout) into the wheel as
``specdefects/lmeval/tasks``, where :func:`specdefects.lmeval.tasks_dir` looks first."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TASKS = Path(__file__).resolve().parent / "tasks"


class BuildPyWithTasks(build_py):
    def run(self):
        super().run()
        if not (TASKS / "spec_defects").is_dir():  # an sdist without tasks/ cannot make a working wheel
            raise SystemExit(f"{TASKS} is missing: cannot package the lm-eval tasks")
        dest = Path(self.build_lib) / "specdefects" / "lmeval" / "tasks"
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(TASKS, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithTasks})
