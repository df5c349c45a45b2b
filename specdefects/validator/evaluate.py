"""Evaluation in the study's Table 5 layout: every detector and baseline on the same split
(accuracy, macro P/R/F1, MCC, trainable-parameter %), per-class reports, a confusion-matrix PNG,
a t-SNE projection of the detector's features (Figure 3) and the real defects it flags among the
clean originals of the split (RQ3).

Files written under ``out``: ``table5.md``, ``table5.csv``, ``evaluation.json``,
``confusion_<name>.png``, ``embedding_tsne.png``, ``real_defects.md``, ``real_defects.jsonl``,
``real_descriptions.md``, ``reliability.png``; all of them together at the end (``files.atomic_dir``).
"""

from __future__ import annotations

import csv
import io
import json
import re
import statistics
import time
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..files import atomic_dir, check_output_dir, owned_names
from ..llm import LLMClient
from .baselines import LLMBaseline, TfidfBaseline, pick_shots
from .data import drop_indistinct_sf, load_original_tasks, load_validator
from .decision import decide, decide_texts, evidence_for, reliability, resolve_threshold
from .errors import ValidatorError
from .evidence import summarize
from .model import LABELS, load_detector, read_meta
from .real_descriptions import REAL_DEV, load_real_dev, real_dev_report, report_md, specificity
from .runs import SUMMARY_KEYS, mean_scores, scores

HYBRID_NAME = "TF-IDF + evidence features (stacked LR)"
# every file evaluate writes: an earlier evaluation's files in --out are replaced, anything else is the user's
EVALUATION_MARK = "validator evaluate"  # files.OUTPUT_MARK: what makes a folder an earlier evaluation
EVALUATION_FILES = ("table5.md", "table5.csv", "evaluation.json", "confusion_*.png", "embedding_tsne.png",
                    "real_defects.md", "real_defects.jsonl", "real_descriptions.md", "reliability.png")
TABLE_COLUMNS = ("classifier", "trainable_pct", "accuracy", "precision", "recall", "f1", "mcc")


def detector_folders(path: str) -> list[str]:
    """A detector folder, or a training output (its ``seed-*/model`` folders: scores are averaged)."""
    p = Path(path).expanduser()
    seeds = sorted(p.glob("seed-*/model")) if p.is_dir() else []
    seeds = [s for s in seeds if (s / "config.json").exists()]
    if seeds:
        return [str(s) for s in seeds]
    return [str(p) if p.exists() else path]


def detector_name(folder: str) -> str:
    meta = read_meta(folder)
    if not meta:
        return Path(folder).name or folder
    if meta.get("regime") == "hybrid":
        return HYBRID_NAME
    bb = Path(str(meta.get("backbone", "model"))).name
    if bb == "model" and "minilm" in str(meta.get("backbone", "")).lower():
        bb = "all-MiniLM-L6-v2"
    regime = {"probe": "linear probe", "lora": "LoRA r=16", "full": "full fine-tune"}.get(meta.get("regime"),
                                                                                     meta.get("regime", ""))
    return f"{bb} {regime}".strip()


def _mean(reports: list[dict]) -> dict:
    out = mean_scores(reports)
    out["per_class"] = {lab: {m: sum(r["per_class"][lab][m] for r in reports) / len(reports)
                              for m in ("precision", "recall", "f1")} | {"support": reports[0]["per_class"][lab]
                                                                          ["support"]} for lab in LABELS}
    out["confusion_matrix"] = [[sum(r["confusion_matrix"][i][j] for r in reports) / len(reports)
                                for j in range(len(LABELS))] for i in range(len(LABELS))]
    out["n"] = reports[0]["n"]
    out["runs"] = len(reports)
    if len(reports) > 1:
        out["std"] = {k: statistics.pstdev([r[k] for r in reports]) for k in SUMMARY_KEYS}
    return out


def evaluate(models: Sequence[str], data: str, out: str, split: str = "test", tfidf: bool = True,
             llm: str | None = None, llm_shots: Sequence[int] = (0, 4), benchmarks: list[str] | None = None,
             tsne: bool = True, real_defects: bool = True, seed: int = 0, progress: bool = True,
             threshold: dict | float | None = None, real_dev: str | None = None, overwrite: bool = False) -> dict:
    """Every detector and baseline on ``split`` of ``data``; the files (module docstring) are written
    whole into ``out`` at the end (``files.atomic_dir``; an earlier evaluation there is replaced, other
    files need ``overwrite``), nothing when it fails. The summary dict."""
    final = check_output_dir(out, ours=owned_names(*EVALUATION_FILES), overwrite=overwrite, mark=EVALUATION_MARK,
                             inputs=[data, real_dev, *models])
    rows_data = load_validator(data, benchmarks)
    dropped = drop_indistinct_sf(rows_data)
    if split not in rows_data or not rows_data[split]["text"]:
        if benchmarks and not any(rows_data[s]["text"] for s in rows_data):
            raise ValidatorError(f"{data} holds no row of {', '.join(benchmarks)} (--benchmarks): it was built "
                                 f"from other benchmarks")
        raise ValidatorError(f"{data} has no {split!r} split (splits: {', '.join(rows_data) or 'none'})")
    if not models and not tfidf and not llm:
        raise ValidatorError("nothing to evaluate: give --model, or keep the TF-IDF baseline, or --llm")
    test = rows_data[split]
    texts, y = test["text"], test["label"]
    with atomic_dir(final, mark=EVALUATION_MARK) as out_p:
        results: list[dict] = []
        first_det = None
        for m in models:
            res, first = _detector_result(m, texts, y)
            results.append(res)
            if first_det is None:
                first_det = first
        results += _baseline_results(rows_data, data, texts, y, tfidf, llm, llm_shots, seed)

        # files are written into out_p and named where they will be once it is swapped in: final
        files: dict[str, str] = {}
        summary = {"data": str(data), "split": split, "n": len(texts), "indistinct_sf_dropped": dropped.get(split, 0),
                   "results": results, "files": files}
        md, csv_text = table5(results)
        (out_p / "table5.md").write_text(md)
        (out_p / "table5.csv").write_text(csv_text)
        files["table5_md"], files["table5_csv"] = str(final / "table5.md"), str(final / "table5.csv")
        for r in results:
            png = f"confusion_{_slug(r['classifier'])}.png"
            confusion_png(r["confusion_matrix"], out_p / png, r["classifier"])
            r["confusion_png"] = str(final / png)
        if first_det is not None and tsne:
            det, _ = first_det
            tsne_png(det.embed(texts), y, out_p / "embedding_tsne.png", seed=seed,
                     title=f"{detector_name(det.path)}: t-SNE of {split} features")
            files["embedding_tsne"] = str(final / "embedding_tsne.png")
        t = resolve_threshold(first_det[0], threshold) if first_det is not None else None
        if first_det is not None and real_defects:
            flagged = flag_real_defects(test, *first_det, t)
            summary["real_defects"] = flagged
            (out_p / "real_defects.jsonl").write_text("".join(json.dumps(f) + "\n" for f in flagged))
            (out_p / "real_defects.md").write_text(real_defects_md(flagged, sum(1 for v in y if v == "clean")))
            files["real_defects"] = str(final / "real_defects.md")
        if first_det is not None:
            summary.update(real_description_report(*first_det, rows_data, split, out_p, t, real_dev, data, benchmarks))
            files["real_descriptions"] = str(final / "real_descriptions.md")
            files["reliability"] = str(final / "reliability.png")
        files["evaluation"] = str(final / "evaluation.json")
        (out_p / "evaluation.json").write_text(json.dumps(summary, indent=2, default=str))
    return summary


def _detector_result(m: str, texts: Sequence[str], y: Sequence[str]) -> tuple[dict, tuple]:
    """One detector on the split (a training output: its seeds' scores averaged): the result row and
    ``(detector, class probabilities of the split)`` of its first folder."""
    folders = detector_folders(m)
    reports, times = [], []
    first = None
    for f in folders:
        det = load_detector(f)
        t0 = time.perf_counter()
        probs = det.predict_proba(texts)
        times.append(time.perf_counter() - t0)
        reports.append(scores(y, decide(probs, None)))
        if first is None:
            first = (det, probs)
    meta = read_meta(folders[0])
    res = {"classifier": detector_name(folders[0]), "kind": "detector", "path": m, "folders": folders,
           "trainable_pct": float(meta.get("trainable_pct", 100.0)), **_mean(reports),
           "predict_seconds": sum(times) / len(times)}
    return res, first


def _baseline_results(rows_data: dict, data: str, texts: Sequence[str], y: Sequence[str], tfidf: bool,
                      llm: str | None, llm_shots: Sequence[int], seed: int) -> list[dict]:
    """The TF-IDF baseline (trained on the train split) and the LLM zero/few-shot baselines."""
    results = []
    if tfidf:
        if "train" not in rows_data:
            raise ValidatorError(f"{data} has no train split for the TF-IDF baseline")
        t0 = time.perf_counter()
        b = TfidfBaseline(seed=seed).fit(rows_data["train"]["text"], rows_data["train"]["label"])
        pred = b.predict(texts)
        results.append({"classifier": b.name, "kind": "baseline", "trainable_pct": 100.0, **scores(y, pred),
                        "train_seconds": time.perf_counter() - t0})
    if llm:
        client = LLMClient.from_spec(llm)
        for k in llm_shots:
            shots = pick_shots(rows_data["train"]["text"], rows_data["train"]["label"], k, seed) if k else []
            b = LLMBaseline(client, shots)
            pred = b.predict(texts)
            results.append({"classifier": f"{client.model} ({'few' if k else 'zero'}-shot{f', {k}' if k else ''})",
                            "kind": "llm", "trainable_pct": 0.0, "unparsed": b.unparsed, **scores(y, pred)})
    return results


def real_description_report(det, probs, rows_data: dict, split: str, out_p: Path, threshold: dict | float | None,
                            real_dev: str | None = None, data_source: str | None = None,
                            benchmarks: list[str] | None = None) -> dict:
    """The detector on real descriptions at its operating point ``threshold`` (see
    :mod:`.real_descriptions`) and the reliability of its P(defect) on the split (``probs``: its class
    probabilities there); writes ``real_descriptions.md`` and ``reliability.png``."""
    from .consistency import cases_of_task
    tests = {u: cases_of_task(t) for u, t in load_original_tasks(data_source, benchmarks).items()} if data_source else {}
    spec = specificity(det, rows_data, split, threshold, tests)
    dev = real_dev_report(det, threshold, load_real_dev(real_dev or REAL_DEV), tests)
    labels = rows_data[split]["label"]
    curve = reliability([int(lab != "clean") for lab in labels], [1.0 - float(p[0]) for p in probs])
    reliability_png({detector_name(det.path): curve}, out_p / "reliability.png",
                    f"{detector_name(det.path)}: P(defect) on the {split} split")
    at_point = scores(labels, decide_texts(det, rows_data[split]["text"], probs, threshold))
    (out_p / "real_descriptions.md").write_text(report_md(spec, dev, split, at_point))
    return {"operating_point": {"threshold": threshold, "scores": at_point}, "specificity": spec, "real_dev": dev,
            "reliability": curve}


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()[:60] or "model"


def table5(results: list[dict]) -> tuple[str, str]:
    """(Markdown, CSV) in the layout of the study's Table 5."""
    head = "| Classifier | Trainable % | Accuracy | Precision | Recall | F1 | MCC |\n|---|---|---|---|---|---|---|\n"
    lines = []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(TABLE_COLUMNS)
    for r in results:
        tp = r["trainable_pct"]
        tps = "0" if tp == 0 else (f"{tp:.4g}" if tp < 100 else "100")
        std = r.get("std") or {}
        cell = lambda k, r=r, std=std: f"{r[k]:.3f}" + (f" ± {std[k]:.3f}" if k in std else "")  # noqa: E731
        lines.append(f"| {r['classifier']} | {tps} | {cell('accuracy')} | {cell('precision')} | {cell('recall')} | "
                     f"{cell('f1')} | {cell('mcc')} |")
        w.writerow([r["classifier"], tps] + [f"{r[k]:.4f}" for k in TABLE_COLUMNS[2:]])
    per = ["", "Per-class F1:", "", "| Classifier | " + " | ".join(LABELS) + " |",
           "|---|" + "---|" * len(LABELS)]
    for r in results:
        per.append(f"| {r['classifier']} | " + " | ".join(f"{r['per_class'][lab]['f1']:.3f}" for lab in LABELS) + " |")
    return head + "\n".join(lines) + "\n" + "\n".join(per) + "\n", buf.getvalue()


@contextmanager
def _figure(path: Path, title: str, size: tuple[float, float]):
    """Axes to draw on; the figure is titled and saved to ``path`` when the block ends."""
    import matplotlib  # lazy: matplotlib is optional (the eval/leaderboard extras); only the figures need it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: as above
    fig, ax = plt.subplots(figsize=size, dpi=120)
    yield ax
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def confusion_png(cm, path: Path, title: str) -> None:
    a = np.asarray(cm, dtype=float)
    with _figure(path, title, (4.2, 3.8)) as ax:
        ax.imshow(a, cmap="Blues")
        ax.set_xticks(range(len(LABELS)), LABELS)
        ax.set_yticks(range(len(LABELS)), LABELS)
        ax.set_xlabel("predicted")
        ax.set_ylabel("true")
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                v = a[i, j]
                ax.text(j, i, f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}", ha="center", va="center",
                        color="white" if v > a.max() / 2 else "black", fontsize=9)


def tsne_png(X, labels: Sequence[str], path: Path, seed: int = 0, title: str = "") -> None:
    from sklearn.manifold import TSNE  # lazy: sklearn.manifold is slow to import and only the t-SNE figure needs it
    X = np.asarray(X, dtype=np.float32)
    n = len(X)
    if n < 5:
        raise ValidatorError(f"t-SNE needs at least 5 rows, got {n}")
    Z = TSNE(n_components=2, perplexity=min(30.0, max(2.0, (n - 1) / 3)), random_state=seed, init="pca").fit_transform(X)
    with _figure(path, title, (5, 4.2)) as ax:
        for lab, color in zip(LABELS, ("tab:green", "tab:blue", "tab:orange", "tab:red")):
            idx = [i for i, y in enumerate(labels) if y == lab]
            ax.scatter(Z[idx, 0], Z[idx, 1], s=8, c=color, label=lab, alpha=0.7)
        ax.legend(markerscale=2, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])


def reliability_png(curves: dict[str, dict], path, title: str = "") -> None:
    with _figure(path, title or "reliability of P(defect)", (4.2, 4.0)) as ax:
        ax.plot([0, 1], [0, 1], ls="--", c="grey", lw=1, label="perfectly calibrated")
        for name, c in curves.items():
            ax.plot(c["mean_predicted"], c["fraction_defective"], marker="o", ms=3,
                    label=f"{name} (ECE {c['ece']:.3f})")
        ax.set_xlabel("predicted P(defect)")
        ax.set_ylabel("observed share defective")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7)


def flag_real_defects(split_rows: dict, det, probs, threshold: dict | float | None = None) -> list[dict]:
    """Clean originals the detector flags at its operating point (``threshold``; ``None``: argmax),
    most confident first, with evidence. ``probs``: the detector's class probabilities of the split."""
    out = []
    for i, (lab, p) in enumerate(zip(decide_texts(det, split_rows["text"], probs, threshold), probs)):
        if split_rows["label"][i] == "clean" and lab != "clean":
            text = split_rows["text"][i]
            out.append({"uid": split_rows["uid"][i], "benchmark": split_rows["benchmark"][i], "label": lab,
                        "probability": float(p[LABELS.index(lab)]), "p_clean": float(p[0]), "text": text,
                        "evidence": summarize(evidence_for(det, text), lab)})
    out.sort(key=lambda d: -d["probability"])
    return out


def real_defects_md(flagged: list[dict], n_clean: int) -> str:
    lines = [f"# Real defects flagged among {n_clean} clean originals: {len(flagged)}", "",
             "| task | predicted | p | description | evidence |", "|---|---|---|---|---|"]
    for f in flagged:
        text = " ".join(f["text"].split())
        text = text if len(text) <= 160 else text[:157] + "..."
        lines.append(f"| {f['uid']} | {f['label']} | {f['probability']:.2f} | {text.replace('|', '/')} | "
                     f"{'; '.join(f['evidence']).replace('|', '/')} |")
    return "\n".join(lines) + "\n"
