"""The worked examples in ``examples/`` still run, so they never rot.

* ``examples/newsgroups.py`` runs as a subprocess on 300 posts of the shared 20 Newsgroups copy
  (skipped when the shared corpora are absent);
* ``examples/compare_algorithms.ipynb`` is executed top to bottom with nbclient, as a copy in a
  temporary folder with ``QUICK = True`` (skipped when nbclient, nbformat or ipykernel is not
  installed: ``pip install ".[test]"``). The repository file is never written.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from topicvb.datasets import find_corpora_dir

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MODELS = ("PLSA", "BatchLDA", "CollapsedLDA", "OnlineLDA")

SCRIPT_TIMEOUT_S = 420  # the run takes well under a minute once the numba kernels are compiled
CELL_TIMEOUT_S = 240


def _newsgroups_dir():
    corpora = find_corpora_dir()
    if corpora is None:
        return None
    for base in (corpora, corpora / "20news-bydate"):
        if (base / "20news-bydate.tar.gz").is_file() or (base / "20news-bydate-train").is_dir():
            return corpora
    return None


def _env(**extra):
    env = dict(os.environ, PYTHONIOENCODING="utf-8", **extra)
    env.pop("PYTHONSTARTUP", None)
    return env


@pytest.mark.slow
def test_newsgroups_script(tmp_path):
    pytest.importorskip("matplotlib", reason="examples/newsgroups.py draws its figures with matplotlib")
    data_home = _newsgroups_dir()
    if data_home is None:
        pytest.skip(
            "examples/newsgroups.py is tested on the shared 20 Newsgroups copy (20news-bydate/20news-bydate.tar.gz "
            "under $TOPICVB_CORPORA or ../shared/corpora), which is absent here."
        )
    out = tmp_path / "plots"
    cmd = [
        sys.executable, str(EXAMPLES / "newsgroups.py"),
        "--data-home", str(data_home), "--max-docs", "300", "-k", "6", "--max-iter", "10", "--passes", "2",
        "--out", str(out),
    ]
    try:
        proc = subprocess.run(cmd, cwd=tmp_path, env=_env(MPLBACKEND="Agg"), capture_output=True, text=True,
                              timeout=SCRIPT_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"examples/newsgroups.py did not finish in {SCRIPT_TIMEOUT_S} s; output so far:\n"
                    f"{exc.stdout or ''}\n{exc.stderr or ''}")
    assert proc.returncode == 0, f"examples/newsgroups.py failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    stdout = proc.stdout
    assert "300 training posts" in stdout
    # one topic table per model, and one comparison row per model
    for name in MODELS:
        assert f"{name} (" in stdout, f"no topic table for {name}:\n{stdout}"
    comparison = stdout[stdout.index("model  "):]
    for name in MODELS:
        assert any(line.startswith(name) for line in comparison.splitlines()), comparison
    for plot in ("bound_history.png", "perplexity_vs_time.png", "top_words_batchlda.png"):
        path = out / plot
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{plot} was not written"


def _missing_notebook_tools():
    return [name for name in ("nbformat", "nbclient", "ipykernel") if importlib.util.find_spec(name) is None]


@pytest.mark.slow
def test_compare_algorithms_notebook(tmp_path, builtin_corpus_cache):
    missing = _missing_notebook_tools()
    if missing:
        pytest.skip(f"Executing examples/compare_algorithms.ipynb needs {', '.join(missing)}; "
                    "install the test extra: pip install '.[test]'.")
    import nbformat
    from nbclient import NotebookClient

    source = EXAMPLES / "compare_algorithms.ipynb"
    nb = nbformat.read(source, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "QUICK = False" in first.source, "the first code cell of the notebook must set QUICK = False"
    first.source = first.source.replace("QUICK = False", "QUICK = True")

    copy = tmp_path / source.name
    nbformat.write(nb, copy)  # work on a copy; the repository file keeps its saved outputs
    nb = nbformat.read(copy, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    env = _env(TOPICVB_CACHE=str(builtin_corpus_cache))  # the built-in corpus: collected once a session
    env.pop("MPLBACKEND", None)  # the kernel's own inline backend draws the figures into the notebook
    client.execute(env=env)
    nbformat.write(nb, copy)

    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("topicvb-topic-table" in h for h in html), "no TopicTable was rendered as HTML"
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 4, "expected at least four inline plots"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "same topics: True" in text and "same transform: True" in text, text[-2000:]
