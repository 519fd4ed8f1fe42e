"""The README's Python code blocks run as written, in order, in one namespace.

Every fenced block marked ```python is executed top to bottom, the way a newcomer pastes them into
one session; shell blocks (```bash, plain ```) are not run. The blocks run in a temporary working
folder (they write files such as ``topics.npz``) with matplotlib's Agg backend, and the built-in corpus
is cached in the session's folder (conftest's ``builtin_corpus_cache``), not in ``~/.cache``. A block that needs
an optional dependency that is absent (dask/distributed, matplotlib) is skipped, and the blocks
after it still run: the README keeps such blocks last in their chain (nothing later uses what
they define). The Dask block starts its own ``LocalCluster`` with two 1-thread workers.

Each block is its own test, named after its README line, and a failure shows the README line in
the traceback (the blocks are compiled with the README's name and line numbers).
"""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

from topicvb.exceptions import DeadTopicWarning, SeedLostWarning, SeedUnseenWarning

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)

#: Modules a block may import that are optional dependencies, with the extra that installs them.
OPTIONAL = {"distributed": "dask", "dask": "dask", "matplotlib": "plot"}


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line of the code in the file, code) of every ```python block, in order."""
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start(1)) + 1
        out.append((line, m.group(1)))
    return out


def _missing_optional(source: str) -> str | None:
    """The first optional top-level module the block imports that cannot be imported, else None."""
    imported = re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][\w.]*)", source, re.M)
    if "topicvb.plotting" in imported:
        imported.append("matplotlib")
    for name in imported:
        top = name.split(".")[0]
        if top not in OPTIONAL:
            continue
        try:
            module = importlib.import_module(top)
        except ImportError:
            return top
        # a folder named like the package (tests/distributed) imports as an empty namespace package
        if getattr(module, "__file__", None) is None:
            return top
    return None


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


class _Session:
    """Runs the blocks in order in one namespace, each at most once."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.namespace: dict = {"__name__": "__readme__"}
        self.done = 0
        self.failed: int | None = None
        self.skipped: dict[int, str] = {}

    def run_through(self, index: int, monkeypatch) -> None:
        monkeypatch.chdir(self.workdir)
        while self.done <= index:
            i = self.done
            if self.failed is not None:
                pytest.fail(f"README block at line {BLOCKS[self.failed][0]} failed, so the blocks after it "
                            "cannot run in order.")
            line, source = BLOCKS[i]
            missing = _missing_optional(source)
            if missing is not None:
                self.skipped[i] = missing
            else:
                code = compile("\n" * (line - 1) + source, str(README), "exec")
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # convergence notes on small fits are not errors here
                        for quality in (SeedLostWarning, SeedUnseenWarning, DeadTopicWarning):  # but a newcomer who
                            # pastes a block should not be told that its topics are dead or lost their seeds (the
                            # guided example's seeds "distribution", "sample", "variance" were)
                            warnings.simplefilter("error", quality)
                        exec(code, self.namespace)
                except BaseException:
                    self.failed = i
                    raise
                finally:
                    self._close_clients()
            self.done += 1
        if index in self.skipped:
            pytest.skip(f"the README block at line {BLOCKS[index][0]} needs {self.skipped[index]}, which is not "
                        f"installed (pip install 'topicvb[{OPTIONAL[self.skipped[index]]}]').")

    def _close_clients(self) -> None:
        """Close any Dask client a block left open, so its LocalCluster does not outlive the test."""
        for value in list(self.namespace.values()):
            if type(value).__name__ == "Client" and type(value).__module__.startswith("distributed"):
                value.close()


@pytest.fixture(scope="module")
def session(tmp_path_factory, builtin_corpus_cache):
    try:
        import matplotlib
    except ImportError:
        matplotlib = None
    else:
        matplotlib.use("Agg")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TOPICVB_CACHE", str(builtin_corpus_cache))  # the built-in corpus: collected once a session
        yield _Session(tmp_path_factory.mktemp("readme"))
    if matplotlib is not None:
        import matplotlib.pyplot as plt

        plt.close("all")


def test_readme_has_the_blocks_the_tour_promises():
    sources = [s for _, s in BLOCKS]
    assert len(BLOCKS) >= 6
    assert any("GridSearchCV" in s for s in sources)
    assert any("make_topic_pipeline" in s for s in sources)
    assert any("heldout_perplexity" in s for s in sources)
    assert any("topicvb.plotting" in s for s in sources)
    assert any("fit_distributed" in s for s in sources)


def test_block_finder_and_optional_modules():
    text = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\nimport distributed\ny = x\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "import distributed\ny = x\n")]
    assert _missing_optional("import no_such_optional_module\n") is None  # not an optional dependency
    assert _missing_optional("from topicvb import BatchLDA\n") is None


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[f"line{line}" for line, _ in BLOCKS])
def test_readme_block_runs(session, monkeypatch, index):
    session.run_through(index, monkeypatch)
