"""The leaderboard's Gradio 6 app (the Space's ``leaderboard/app.py`` is a thin wrapper).

Everything comes from one :class:`~specdefects.leaderboard.store.LeaderboardStore` and the study's
published figures; a results file that cannot be read is shown as a warning, never fatal.
"""

from __future__ import annotations

import html
import logging
import os
import re
import threading

from ..vocabulary import benchmarks as spec_benchmarks
from .results import (
    DETECTOR_TABLE,
    FOLLOW_TABLE,
    QUEUE_COLUMNS,
    SOURCE_LABEL,
    defects,
    detectors_frame,
    follow_frame,
    heatmap_figure,
    labels,
    load_board,
    queue_frame,
    robustness_columns,
    robustness_frame,
    robustness_table,
    styled,
)
from .store import open_store
from .submissions import MODEL_TYPES, PRECISIONS, SubmissionError, make_request

log = logging.getLogger("specdefects.leaderboard")

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def escape_md(text: str) -> str:
    """User- or file-provided text made inert for gr.Markdown: HTML escaped, Markdown punctuation too.
    Quotes are left as they are: outside a tag (and no tag can open: ``<`` is escaped) they are plain
    text, and their entity ``&#x27;`` had its ``#`` escaped as Markdown, so it showed as "&#x27;"."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False))


def robustness_types() -> list[str]:
    """The robustness table's column dtypes: from its column table, not a list kept aligned by hand."""
    return [c.dtype for c in robustness_table()]


ABOUT = """
## What the numbers mean

**Robustness** (the defective-descriptions study, Table 4). Each benchmark task is asked with its original
description (**Orig**) and with three defective rewrites that keep the tests unchanged:
**US** under-specification (a needed detail removed), **LV** lexical vagueness (precise words replaced by
vague ones, identifiers renamed), **SF** syntax/formatting defects (broken punctuation, layout, typos).
Each cell is **Pass@1 in percent** (greedy decoding, one sample per task); **ΔUS / ΔLV / ΔSF** are the
signed changes from Orig in percentage points (negative = the defect hurt). A defect covers only the tasks
that have its mutant (US: a description with no constraint to delete has none), so for the rows evaluated
here Δ compares with Orig **on the same tasks**; **Δ on** says so and gives the count where it is fewer
than Orig's. The study's rows keep its own layout (Orig over all tasks, its coverage near complete).

**Drop heatmap** (Figure 2): the Δ columns as a model × (benchmark, defect) grid.

**Follows tests** (the follow-tests study). Each specification family is asked twice with matched prompts
whose example tests follow reference rule A or rule B. **Switching** is the share of paired tasks where the
model's solution follows A under the A-tests and B under the B-tests (mean of 3 runs, 95% family-cluster
bootstrap interval). **Adherence** is the share of solutions that satisfy the rule the prompt's tests
show (Tests A / Tests B), or that the prompt states explicitly (Explicit A / B).

**Detectors** (Table 5): 4-class detection (clean / LV / US / SF) of defective descriptions: accuracy,
macro precision/recall/F1 and Matthews correlation (MCC); *Trainable %* is the share of parameters trained.

**Sources**: ◆ reported in the study (numbers transcribed from the papers), ✔ evaluated here (run by
this leaderboard's queue), ⚠ self-reported (results uploaded by their authors, not re-run).

## Reproduce a row with one command

```bash
specdefects eval --model vllm --model_args pretrained=ORG/NAME,dtype=bfloat16 \\
    --tasks spec_defects --output_path out --log_samples
specdefects report out --out report/     # Table 4 / Figure 2 / switching tables
```

The queue runs exactly this (see `specdefects leaderboard run-queue --help`); its results JSON keeps the
full lm-eval output, and the samples are stored next to it.
"""


def _warnings_md(warnings: list[str]) -> str:
    if not warnings:
        return ""
    items = "\n".join(f"- {escape_md(w)}" for w in warnings[:50])
    more = f"\n- … and {len(warnings) - 50} more" if len(warnings) > 50 else ""
    return f"**⚠ {len(warnings)} file(s) could not be used and were skipped:**\n{items}{more}"


FOLLOW_ONE_DECIMAL = tuple(c.label for c in FOLLOW_TABLE if c.decimals == 1)


def _handlers(store, published):
    """The app's event handlers over ``store``: ``(refresh, refilter, submit)``."""
    def load():
        board = load_board(store, published)
        try:
            requests = store.list_requests()
            board.warnings.extend(getattr(store, "warnings", []))
        except Exception as e:  # noqa: BLE001 - an unreachable store is a warning, not a crash
            requests = []
            board.warnings.append(f"requests store {store.describe()} not readable: {e}")
        return board, requests

    def refresh(search, sizes, types, sources, benches):
        board, requests = load()
        return (board, _warnings_md(board.warnings),
                _rob(board.robustness, search, sizes, types, sources, benches),
                heatmap_figure(board.robustness),
                styled(follow_frame(board.follow), one_decimal=FOLLOW_ONE_DECIMAL),
                styled(detectors_frame(board.detectors)),
                queue_frame(requests))

    def refilter(board, search, sizes, types, sources, benches):
        return _rob(board.robustness if board else [], search, sizes, types, sources, benches)

    def _rob(rows, *filters):
        return styled(robustness_frame(rows, *filters), signed=tuple(f"Δ{d}" for d in defects()),
                      one_decimal=("Orig", *defects()))

    def submit(model, revision, precision, model_type, chat, submitter):
        try:
            req = make_request(model, revision or None, precision, model_type, bool(chat), submitter or "anonymous")
            store.submit(req)
            msg = (f"✔ Submitted **{escape_md(req['model'])}** at revision {escape_md(req['revision'])} in "
                   f"{escape_md(req['precision'])}: PENDING (request {escape_md(req['id'])}). See the Queue tab.")
        except SubmissionError as e:
            msg = f"✖ **Not submitted:** {escape_md(e)}"
        except Exception as e:  # noqa: BLE001
            log.exception("submission failed")
            msg = f"✖ **Not submitted:** {escape_md(type(e).__name__)}: {escape_md(e)}"
        try:
            requests = store.list_requests()
        except Exception:  # noqa: BLE001
            requests = []
        return msg, queue_frame(requests)

    return refresh, refilter, submit


def _robustness_tab(gr):
    """Table 4 with its filters: ``([search, sizes, types, sources, benches], table)``."""
    with gr.Tab("Robustness", id="robustness"):
        with gr.Row():
            search = gr.Textbox(label="Search models", placeholder="e.g. qwen; llama", scale=2,
                                elem_id="search")
            benches = gr.CheckboxGroup(list(spec_benchmarks()), label="Benchmark")
        with gr.Row():
            sizes = gr.CheckboxGroup(["small", "large", "api", "unknown"], label="Model size")
            types = gr.CheckboxGroup(list(MODEL_TYPES), label="Model type")
            sources = gr.CheckboxGroup(list(SOURCE_LABEL.values()), label="Source")
        rob = gr.Dataframe(headers=list(robustness_columns()),
                           datatype=robustness_types(), interactive=False,
                           elem_id="robustness-table", label="Pass@1 (%) and signed change vs. Orig (pp)",
                           max_height=700, pinned_columns=1)
    return [search, sizes, types, sources, benches], rob


def _table_tab(gr, title: str, tab_id: str, table):
    """A tab that shows one table (the follow-tests table, Table 5's detectors)."""
    with gr.Tab(title, id=tab_id):
        return gr.Dataframe(headers=labels(table), interactive=False, elem_id=f"{tab_id}-table",
                            datatype=[c.dtype for c in table])


def _submit_tab(gr):
    """The submission form: ``([model, revision, precision, type, chat, submitter], button, message)``."""
    with gr.Tab("Submit", id="submit"):
        gr.Markdown("Submit a model from the Hub. It is checked (exists, licence, size) and then "
                    "evaluated on every spec_defects task by the queue worker.")
        with gr.Row():
            s_model = gr.Textbox(label="Model (ORG/NAME)", elem_id="submit-model", max_length=200)
            s_rev = gr.Textbox(label="Revision (commit sha or branch)", placeholder="main",
                               elem_id="submit-revision", max_length=100)
        with gr.Row():
            s_prec = gr.Dropdown(list(PRECISIONS), value="bfloat16", label="Precision")
            s_type = gr.Dropdown(list(MODEL_TYPES), value="pretrained", label="Model type")
            s_chat = gr.Checkbox(label="Use the chat template", value=False)
            s_who = gr.Textbox(label="Your name or Hub user (optional)", max_length=100,
                               elem_id="submit-submitter")
        s_btn = gr.Button("Submit for evaluation", variant="primary", elem_id="submit-button")
        s_msg = gr.Markdown(elem_id="submit-message")
    return [s_model, s_rev, s_prec, s_type, s_chat, s_who], s_btn, s_msg


def build_app(store=None, published=None):
    """The Blocks app. ``store``: a spec string (folder or ``hub:REQ,RES``) or a store object."""
    import gradio as gr  # lazy: gradio is the app's optional dependency; the store and loaders work without it

    store = open_store(store) if store is None or isinstance(store, (str, os.PathLike)) else store
    refresh, refilter, submit = _handlers(store, published)
    with gr.Blocks(title="specdefects leaderboard") as demo:
        board_state = gr.State(None)
        gr.Markdown("# specdefects leaderboard\nHow much do defective task descriptions hurt code LLMs, "
                    "and do the models follow the tests they are shown? "
                    f"Store: {escape_md(store.describe())}")
        warn = gr.Markdown(elem_id="load-warnings")
        with gr.Tabs():
            filters, rob = _robustness_tab(gr)
            with gr.Tab("Drop heatmap", id="heatmap"):  # Figure 2
                plot = gr.Plot(label="Figure 2", elem_id="heatmap")
            follow = _table_tab(gr, "Follows tests", "follow", FOLLOW_TABLE)
            det = _table_tab(gr, "Detectors", "detectors", DETECTOR_TABLE)
            submit_inputs, s_btn, s_msg = _submit_tab(gr)
            with gr.Tab("Queue", id="queue"):
                q_btn = gr.Button("Refresh", elem_id="queue-refresh")
                queue = gr.Dataframe(headers=QUEUE_COLUMNS, interactive=False, elem_id="queue-table", wrap=True)
            with gr.Tab("About", id="about"):
                gr.Markdown(ABOUT)

        outs = [board_state, warn, rob, plot, follow, det, queue]
        demo.load(refresh, inputs=filters, outputs=outs)
        q_btn.click(refresh, inputs=filters, outputs=outs)
        for comp in filters:
            comp.change(refilter, inputs=[board_state] + filters, outputs=rob)
        s_btn.click(submit, inputs=submit_inputs, outputs=[s_msg, queue])
    return demo


def launch(store=None, host: str = "127.0.0.1", port: int | None = None, published=None, **kw) -> None:
    """Serve the board until interrupted; Ctrl-C and SIGTERM reach the caller as they came."""
    import gradio as gr  # lazy: as in build_app
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    demo = build_app(store, published)
    system = ["ui-sans-serif", "system-ui", "sans-serif"]  # no web fonts: works offline
    theme = gr.themes.Default(font=system, font_mono=["ui-monospace", "monospace"])
    demo.queue(default_concurrency_limit=4).launch(server_name=host, server_port=port, theme=theme,
                                                   show_error=True, prevent_thread_lock=True, **kw)
    try:  # gradio's own wait turns Ctrl-C and SIGTERM into a normal return: the caller's exit code must say it
        threading.Event().wait()
    finally:
        demo.close()
