"""Where a build folder keeps its data: one folder per config, one parquet file per split, named the
way ``datasets`` and the Hub read them (``<config>/<split>-00000-of-00001.parquet``), beside the card
(``README.md``) and ``build_report.json``. Every reader and writer of a build folder asks here.

>>> str(split_path("out/spec-defects", "humaneval", "test"))
'out/spec-defects/humaneval/test-00000-of-00001.parquet'
"""

from __future__ import annotations

import os
import re
from pathlib import Path

PARQUET_NAME = re.compile(r"[\w.-]+-\d{5}-of-\d{5}\.parquet")  # any split, any shard count


def split_path(folder: str | os.PathLike, config: str, split: str) -> Path:
    """The file a build writes for one split of one config."""
    return Path(folder) / config / f"{split}-00000-of-00001.parquet"


def split_files(folder: str | os.PathLike, config: str, split: str | None = None) -> list[Path]:
    """The parquet files of one config (of one ``split``, else of every split), sorted."""
    return sorted(p for p in (Path(folder) / config).glob(f"{split or '*'}-*.parquet") if PARQUET_NAME.fullmatch(p.name))


def configs(folder: str | os.PathLike) -> dict[str, list[Path]]:
    """``config -> parquet files`` of a build folder."""
    out: dict[str, list[Path]] = {}
    for p in sorted(Path(folder).glob("*/*.parquet")):
        if PARQUET_NAME.fullmatch(p.name):
            out.setdefault(p.parent.name, []).append(p)
    return out
