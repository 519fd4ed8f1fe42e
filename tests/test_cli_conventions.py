"""The command line's manners (issue #24): --version, help with every default and a description per
command, one progress policy, Ctrl-C, a closed pipe, optional dependencies checked first, warnings
as one line, and the fit time kept apart from a first run's kernel compilation."""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import os
import re
import signal
import subprocess
import sys

import numpy as np
import pytest

from process_helpers import ctrl_c_reaches
import topicvb
import topicvb._cli_progress as cli_progress
from topicvb import load
from topicvb.cli import build_parser, main
from topicvb.datasets import make_lda_corpus

FRUIT = "apples pears plums fruit salad orchard harvest juice sweet ripe".split()
CITY = "subway taxi traffic street bridge tower downtown crowd noise city".split()
COMMANDS = ["demo", "vectorize", "fit", "topics", "evaluate", "report", "infer", "select-k"]
BAR = re.compile(r"\d+/\d+ \[")  # what a tqdm bar shows: "12/100 [00:01<..."


def _texts(rng, n):
    return [" ".join(rng.choice(FRUIT if i % 2 == 0 else CITY, size=30)) for i in range(n)]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    """A folder with train/test text folders, a corpus, a model fitted on raw text and one on counts."""
    tmp = tmp_path_factory.mktemp("conv")
    rng = np.random.default_rng(0)
    for name, n in (("train", 40), ("test", 10)):
        (tmp / name).mkdir()
        for i, text in enumerate(_texts(rng, n)):
            (tmp / name / f"doc{i:03d}.txt").write_text(text, encoding="utf-8")
    make_lda_corpus(40, 12, 2, separated=True, random_state=0).corpus.save(tmp / "c.npz")
    assert main(["fit", str(tmp / "train"), "-k", "2", "--max-iter", "50", "--min-df", "1", "-q",
                 "-o", str(tmp / "text_model.npz")]) == 0
    assert main(["fit", str(tmp / "c.npz"), "-k", "2", "--max-iter", "50", "-q", "-o", str(tmp / "m.npz")]) == 0
    return tmp


def _subparsers(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


# ----------------------------------------------------------------------------- --version and --help
@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")  # a narrow terminal must not wrap the line (a long install path did)
    with pytest.raises(SystemExit) as exc:
        main([flag])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"topicvb {topicvb.__version__} from ")
    assert topicvb.__version__ == importlib.metadata.version("topicvb")  # the package and its metadata agree
    with pytest.raises(SystemExit):  # the parser's own --version (``topicvb -V -h``) says the same
        build_parser().parse_args([flag, "-h"])
    assert capsys.readouterr().out == out


def test_every_command_has_a_summary_and_a_description(capsys):
    parser = build_parser()
    sub = _subparsers(parser)
    assert sorted(sub.choices) == sorted(COMMANDS)
    summaries = {a.dest: a.help for a in sub._choices_actions}
    with pytest.raises(SystemExit):
        main(["--help"])
    top = "".join(capsys.readouterr().out.split())  # without the spaces and line breaks of the layout
    for name, p in sub.choices.items():
        assert summaries[name] and p.description, name
        assert name + "".join(summaries[name].split()) in top, name  # listed with its summary


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_shows_its_default(command):
    """Each option's help says its default: argparse's "(default: X)", or words for a None default.
    Flags (off unless given) and required options have none to show."""
    p = _subparsers(build_parser()).choices[command]
    formatter = p._get_formatter()
    missing = []
    for action in p._actions:
        if not action.option_strings or action.nargs == 0 or action.required:
            continue
        text = formatter._expand_help(action)
        if "default" not in text:
            missing.append(action.option_strings[-1])
        if action.default is not None and "%(default)" not in (action.help or "") and "default" in text:
            # a default written in words must be the real one
            m = re.search(r"default: ([^;,)]+)", text)
            if m and str(action.default) not in m.group(1):
                missing.append(f"{action.option_strings[-1]} says {m.group(1)!r}, is {action.default!r}")
    assert not missing, missing


def test_model_defaults_in_help_are_the_estimators(capsys):
    from topicvb.models._registry import ENTRIES

    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    m = re.search(r"--max-iter N iterations \(passes for online and scvb0\) \(default: ([^)]*)\)", out)
    assert m, out
    stated = {}  # "100 for plsa, batch, collapsed; 10 for online" -> {"plsa": "100", ...}
    for group in m.group(1).split("; "):
        value, names = group.split(" for ")
        stated.update({name: value for name in names.split(", ")})
    assert stated == {e.cli_name: str(e.cls().max_iter) for e in ENTRIES}


def test_vectorize_help_states_the_text_defaults_and_how_they_differ(capsys):
    with pytest.raises(SystemExit):
        main(["vectorize", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "The command line's text defaults differ from the Python API's (Vectorizer(min_df=1, max_df=1.0) with " \
           "Tokenizer(stop_words=None)): English stop words are removed, and terms in fewer than 5 documents or in " \
           "more than half of them are dropped." in out  # (stop words are a Tokenizer's: a hunt's newcomer tried
    # Vectorizer(stop_words=...))
    assert "(default: 5; the Python Vectorizer's is 1)" in out
    assert "(default: 0.5, half the documents; the Python Vectorizer's is 1.0)" in out
    assert "(default: english; the Python Tokenizer's is none)" in out
    assert "--vocab model.npz -o test.npz" in out  # the held-out example


def test_the_stated_text_defaults_are_the_ones_used():
    from topicvb._cli_inputs import new_vectorizer

    args = build_parser().parse_args(["vectorize", "x", "-o", "y.npz"])
    vec = new_vectorizer(args)
    assert (vec.min_df, vec.max_df, vec.max_features, vec.phrases) == (5, 0.5, None, False)
    assert vec.tokenizer.stop_words == "english" and vec.tokenizer.stemmer is None and vec.tokenizer.clean is None


# ----------------------------------------------------------------------------- progress
def _run(argv, capsys):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _commands(ws, tmp_path):
    return [
        ["vectorize", ws / "train", "--min-df", "1", "-o", tmp_path / "v.npz"],
        ["fit", ws / "c.npz", "-k", "2", "--max-iter", "30", "-o", tmp_path / "f.npz"],
        ["evaluate", ws / "text_model.npz", ws / "test"],
        ["infer", ws / "text_model.npz", ws / "test", "--show", "2"],
        ["report", ws / "m.npz", ws / "c.npz", "-o", tmp_path / "r.html"],
        ["topics", ws / "m.npz", "--corpus", ws / "c.npz"],
        ["select-k", ws / "c.npz", "--k", "2", "3", "--max-iter", "20"],
    ]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_no_progress_when_stderr_is_not_a_terminal(ws, tmp_path, capsys):
    for argv in _commands(ws, tmp_path):
        rc, out, err = _run(argv, capsys)
        assert rc == 0, (argv, err)
        # no bar, no log line (capsys is not a terminal); a warning would be one "topicvb: warning:" line
        assert not BAR.search(err) and "\r" not in err, (argv[0], err)
        assert all(line.startswith("topicvb: warning: ") for line in err.splitlines()), (argv[0], err)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_bars_for_every_long_stage_on_a_terminal(ws, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli_progress, "stderr_is_terminal", lambda: True)
    expected = {  # what each command's bars show
        "vectorize": ["Vectorizer.fit"],
        "fit": ["CollapsedLDA"],
        "evaluate": ["Vectorizer.transform", "evaluate: held-out perplexity", "evaluate: coherence c_npmi"],
        "infer": ["Vectorizer.transform", "inferring the topics of 10 documents"],
        "report": ["writing the report"],
        "topics": ["summarising the topics"],
        "select-k": ["candidates", "CollapsedLDA"],
    }
    for argv in _commands(ws, tmp_path):
        rc, out, err = _run(argv, capsys)
        assert rc == 0, (argv, err)
        for text in expected[argv[0]]:
            assert text in err, (argv[0], text, err)
        if argv[0] in ("vectorize", "fit", "evaluate", "infer", "select-k"):
            assert BAR.search(err), (argv[0], err)
        assert "Traceback" not in err


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_quiet_silences_bars_and_status_lines_but_not_results(ws, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli_progress, "stderr_is_terminal", lambda: True)
    rc, out, err = _run(["fit", ws / "c.npz", "-k", "2", "--max-iter", "30", "--tol", "1e-2", "-q", "-o",
                         tmp_path / "q.npz"], capsys)
    assert rc == 0 and out == "" and err == ""
    assert (tmp_path / "q.npz").is_file()
    rc, out, err = _run(["topics", tmp_path / "q.npz", "--n", "3", "-q", "--csv", tmp_path / "t.csv"], capsys)
    assert rc == 0 and err == "" and "top words" in out and "written to" not in out


def test_verbose_adds_log_lines_one_per_iteration(ws, tmp_path, capsys):
    rc, out, err = _run(["fit", ws / "c.npz", "-k", "2", "--max-iter", "4", "--tol", "0", "-v",
                         "-o", tmp_path / "v.npz"], capsys)
    assert rc == 0
    lines = err.splitlines()
    iterations = [line for line in lines if re.match(r"CollapsedLDA\s+iter \d+/4\s+bound", line)]
    assert len(iterations) == load(tmp_path / "v.npz").n_iter_ == 4
    assert any(line.startswith("info: topicvb.cli: reading ") for line in lines)
    assert "\r" not in err  # still no bar: not a terminal


def test_quiet_and_verbose_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fit", "c.npz", "-k", "2", "-o", "m.npz", "-q", "-v"])
    assert exc.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_a_model_fitted_with_bars_is_saved_quiet(ws, tmp_path, capsys, monkeypatch):
    """The Vectorizer's bar was the command's: the saved vectorizer must not show one in later use."""
    monkeypatch.setattr(cli_progress, "stderr_is_terminal", lambda: True)
    assert main(["fit", str(ws / "train"), "-k", "2", "--min-df", "1", "-o", str(tmp_path / "m.npz")]) == 0
    assert "Vectorizer.fit" in capsys.readouterr().err
    assert load(tmp_path / "m.npz").vectorizer.verbose == 0


def test_warnings_are_one_line_each(ws, tmp_path, capsys):
    rc, out, err = _run(["fit", ws / "c.npz", "-k", "2", "--max-iter", "2", "-o", tmp_path / "w.npz"], capsys)
    assert rc == 0
    assert err.splitlines() == ["topicvb: warning: CollapsedLDA reached max_iter=2 before the relative change of "
                                "the bound fell below tol=1e-05; raise --max-iter or --tol."]


def _pty_run(argv, cwd):
    """Run ``python -m topicvb argv`` with stderr on a pseudo-terminal (80 columns); (rc, stdout, stderr)."""
    import fcntl
    import pty
    import struct
    import termios
    import threading

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    proc = subprocess.Popen([sys.executable, "-m", "topicvb", *map(str, argv)], stdout=subprocess.PIPE,
                            stderr=slave, cwd=cwd)
    os.close(slave)
    out, _ = proc.communicate(timeout=300)
    reader.join(timeout=10)
    os.close(master)
    return proc.returncode, out.decode(), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminal test (Linux)")
def test_a_real_terminal_gets_bars_a_pipe_none(ws, tmp_path):
    argv = ["fit", ws / "train", "-k", "2", "--min-df", "1", "--max-iter", "30", "-o", tmp_path / "p.npz"]
    rc, out, err = _pty_run(argv, tmp_path)
    assert rc == 0 and "saved to" in out
    assert "Vectorizer.fit" in err and "CollapsedLDA" in err and BAR.search(err), err
    proc = subprocess.run([sys.executable, "-m", "topicvb", *map(str, argv)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0 and "saved to" in proc.stdout
    assert not BAR.search(proc.stderr) and "\r" not in proc.stderr


def test_words_that_stdout_cannot_encode_are_escaped_not_an_error(tmp_path):
    # (before: "topicvb: error: 'ascii' codec can't encode character '\xdf'" and exit 1 where stdout is not UTF-8:
    # PYTHONIOENCODING=ascii, a legacy locale, a Windows console redirected to a file)
    from topicvb import BatchLDA, save

    X = make_lda_corpus(40, 6, 2, random_state=0).corpus.X
    save(BatchLDA(2, max_iter=3, random_state=0).fit(X), tmp_path / "m.npz",
         vocabulary=["straße", "café", "日本", "naïve", "plain", "word"])
    proc = subprocess.run([sys.executable, "-m", "topicvb", "topics", "m.npz"], capture_output=True, cwd=tmp_path,
                          env=dict(os.environ, PYTHONIOENCODING="ascii"), timeout=300)
    assert proc.returncode == 0, proc.stderr.decode("ascii", "replace")
    out = proc.stdout.decode("ascii")
    assert "stra\\xdfe" in out and "\\u65e5\\u672c" in out and "plain" in out


# ----------------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_during_fit_saves_says_so_and_exits_130(ws, tmp_path):
    big = tmp_path / "big.npz"
    make_lda_corpus(3000, 60, 4, random_state=0).corpus.save(big)
    out = tmp_path / "int.npz"
    proc = subprocess.Popen(ctrl_c_reaches([sys.executable, "-m", "topicvb", "fit", str(big), "-k", "4", "--tol", "0",
                                            "--max-iter", "1000000", "-v", "-o", str(out)]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    import threading

    guard = threading.Timer(240, proc.kill)  # never hang the suite
    guard.start()
    try:
        for line in proc.stderr:  # wait for the fit to be under way
            if re.match(r"CollapsedLDA\s+iter 2/", line):
                break
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        proc.wait(timeout=120)
        stdout = proc.stdout.read()
    finally:
        guard.cancel()
        if proc.poll() is None:  # pragma: no cover - only if the test fails
            proc.kill()
    assert proc.returncode == 130, rest
    last = rest.strip().splitlines()[-1]
    m = re.fullmatch(r"topicvb: interrupted \(Ctrl-C\) after iteration (\d+) of 1000000; the model of that "
                     r"iteration was saved to (.*)\.", last)
    assert m, rest
    assert m.group(2) == str(out) and stdout == ""
    assert "Traceback" not in rest and "RuntimeWarning" not in rest
    model = load(out)
    assert model.n_iter_ == int(m.group(1)) >= 2


def test_ctrl_c_before_the_fit_says_nothing_was_saved(ws, tmp_path, capsys, monkeypatch):
    import topicvb._cli_commands as commands  # the commands look their helpers up there

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "_read_corpus", interrupted)
    rc, out, err = _run(["fit", ws / "c.npz", "-k", "2", "-o", tmp_path / "n.npz"], capsys)
    assert rc == 130 and err == "topicvb: interrupted (Ctrl-C); no model was saved.\n"
    assert not (tmp_path / "n.npz").exists()


def test_ctrl_c_during_select_k_stops_it(ws, tmp_path, capsys, monkeypatch):
    """A first Ctrl-C only stops the current fit; select-k must not go on with the next candidates."""
    import warnings

    import topicvb.evaluation as evaluation

    calls = []

    def select(*args, **kwargs):  # what a fit says after a first Ctrl-C
        calls.append(1)
        warnings.warn("CollapsedLDA was interrupted (Ctrl-C) and stopped after its last complete iteration; the "
                      "model holds that iteration's state (see n_iter_).", RuntimeWarning, stacklevel=2)
        raise AssertionError("select-k went on after Ctrl-C")

    monkeypatch.setattr(evaluation, "select_n_topics", select)
    rc, out, err = _run(["select-k", ws / "c.npz", "--k", "2", "3", "--json", tmp_path / "k.json"], capsys)
    assert rc == 130 and err == "topicvb: interrupted (Ctrl-C).\n" and calls == [1]
    assert not (tmp_path / "k.json").exists()


# ----------------------------------------------------------------------------- a closed pipe
def test_a_closed_pipe_ends_quietly(tmp_path):
    corpus = make_lda_corpus(6000, 30, 2, random_state=0).corpus
    corpus.save(tmp_path / "big.npz")
    assert main(["fit", str(tmp_path / "big.npz"), "-k", "2", "--max-iter", "2", "-q",
                 "-o", str(tmp_path / "m.npz")]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "topicvb", "infer", "m.npz", "big.npz", "--show", "5000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    first = proc.stdout.readline()
    proc.stdout.close()  # `| head -1`
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert first.startswith(b"0: topic")
    assert err == "" and proc.returncode == 141  # 128 + SIGPIPE, as the shell reports it; no "Broken pipe"


# ----------------------------------------------------------------------------- optional dependencies
def test_plot_without_matplotlib_fails_before_any_work(ws, tmp_path, capsys, monkeypatch):
    import topicvb._cli_commands as commands  # the commands look their helpers up there

    def no_work(*args, **kwargs):
        raise AssertionError("select-k read its input before checking --plot")

    monkeypatch.setattr(commands, "_read_corpus", no_work)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    rc, out, err = _run(["select-k", ws / "c.npz", "--k", "2", "3", "--plot", tmp_path / "k.png"], capsys)
    assert rc == 1 and out == ""
    assert err == ("topicvb: error: --plot needs matplotlib, which is not installed; install it with: pip install "
                   "matplotlib (or pip install 'topicvb[plot]').\n")


# ----------------------------------------------------------------------------- compile time is not fit time
def test_fit_time_leaves_out_kernel_compilation(ws, tmp_path, capsys, monkeypatch):
    """The command line's hook into ``topicvb._jit.watch_compilation(on_start, on_end)``.

    A stand-in reports one compilation of 2.5 s; the bar says "compiling kernels (first run only)"
    meanwhile and the timing line keeps those seconds apart.
    """
    @contextlib.contextmanager
    def watch_compilation(on_start, on_end):
        on_start("a kernel")
        on_end("a kernel", 2.5)
        yield

    from topicvb import _jit

    monkeypatch.setattr(_jit, "watch_compilation", watch_compilation)
    monkeypatch.setattr(cli_progress, "stderr_is_terminal", lambda: True)
    rc, out, err = _run(["fit", ws / "c.npz", "-k", "2", "--max-iter", "30", "-o", tmp_path / "j.npz"], capsys)
    assert rc == 0
    assert "compiling kernels (first run only)" in err
    m = re.search(r": (\d+) iterations in ([\d.]+) s \(\+ 2\.5 s compiling kernels, first run only\); saved", out)
    assert m, out


def test_fit_timer_separates_a_long_start_up():
    timer = cli_progress.FitTimer()
    timer.start, timer.first, timer.ticks, timer.end = 0.0, 10.5, 21, 12.5  # 0.1 s per iteration after 10.4 s
    assert timer.describe(21) == ("21 iterations in 2.1 s (+ 10.4 s start-up, including any first-run kernel "
                                  "compilation)")
    timer.start, timer.first, timer.ticks, timer.end = 0.0, 0.2, 21, 4.2  # no long start-up
    assert timer.describe(21) == "21 iterations in 4.2 s"
    timer.compile_s = 3.0
    assert timer.describe(21) == "21 iterations in 1.2 s (+ 3.0 s compiling kernels, first run only)"
