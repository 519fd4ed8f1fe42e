"""One Tokenizer / fitted Vectorizer used from several threads at once, and the Vectorizer's worker
processes under another multiprocessing start method."""

import random
import string
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import topicvb.text.tokenize as tokenize_module
from topicvb.text import ENGLISH_STOP_WORDS, Tokenizer, Vectorizer
from topicvb.text.tokenize import _DROP

_STOP = sorted(ENGLISH_STOP_WORDS)
_TWO_LETTERS = ["".join(p) for p in zip(string.ascii_lowercase, reversed(string.ascii_lowercase))]


def _documents(n_docs, seed=0):
    """Documents of stop words, two-letter tokens (too short), numbers and words: most types are dropped."""
    rnd = random.Random(seed)
    docs = []
    for _ in range(n_docs):
        words = (rnd.sample(_STOP, 40) + rnd.choices(_TWO_LETTERS, k=40) + [str(rnd.randint(0, 99)) for _ in range(10)]
                 + ["".join(rnd.choices(string.ascii_lowercase, k=6)) for _ in range(150)])
        rnd.shuffle(words)
        docs.append(" ".join(words))
    return docs


# ---------------------------------------------------------------------------- the type cache's invariant
_SETTINGS = (dict(), dict(stop_words="english"), dict(stop_words="english", lowercase=False),
             dict(numbers="replace"), dict(numbers="keep", alphabetic=False, min_length=2),
             dict(stemmer="porter", stop_words="english"), dict(max_length=5))


class _CheckingCache(dict):
    """A type cache that records every type cached before its classification is visible in ``drop_types`` /
    ``remap_types`` (another thread that finds the type cached looks its classification up there)."""

    def __init__(self, compiled):
        super().__init__()
        self.compiled, self.early = compiled, []

    def _check(self, items):
        c = self.compiled
        for token, term in items:
            if term is _DROP:
                if token not in c.type_maps[1]:
                    self.early.append(token)
            elif term != token and c.type_maps[2].get(token) != term:
                self.early.append(token)

    def __setitem__(self, token, term):
        self._check([(token, term)])
        super().__setitem__(token, term)

    def update(self, other=(), **kwargs):
        items = list(dict(other, **kwargs).items())
        self._check(items)
        super().update(items)


@pytest.mark.parametrize("kwargs", _SETTINGS)
def test_a_type_is_cached_only_after_its_classification_is_visible(kwargs):
    types = set(" ".join(_documents(3)).split()) | {"running", "runners", "Abc", "x11", "486dx", "3_000", "<num>",
                                                    "naïve", "hí", "देश", "longwordhere"}
    for classify in ("one by one", "batch", "count", "tokenize", "encode"):
        tok = Tokenizer(**kwargs)
        c = tok._compile()
        cache = _CheckingCache(c)
        c.type_maps = (cache, *c.type_maps[1:])
        if classify == "one by one":
            for t in sorted(types):
                Tokenizer._map_type(c, t)
        elif classify == "batch":
            Tokenizer._map_types(c, set(types))
        elif classify == "count":
            tok.count(" ".join(sorted(types)))
        elif classify == "tokenize":
            tok(" ".join(sorted(types)))
        else:
            tok._encode_chunk([" ".join(sorted(types))])
        if classify in ("one by one", "batch", "encode") or c.needs_type_map:
            assert len(cache) > 0, (kwargs, classify)  # (the types went through this cache)
        assert cache.early == [], (kwargs, classify)


class _ResettingCache(dict):
    """A type cache that, the first time it is found to hold a type, is reset as by another thread's
    ``_limit_cache`` (the cache reached ``_MAX_CACHE``) at that very moment."""

    def __init__(self, compiled, contents, monkeypatch):
        super().__init__(contents)
        self.compiled, self.monkeypatch, self.fired = compiled, monkeypatch, False

    def __contains__(self, token):
        found = super().__contains__(token)
        if found and not self.fired:
            self.fired = True
            with self.monkeypatch.context() as m:
                m.setattr(tokenize_module, "_MAX_CACHE", 0)
                Tokenizer._limit_cache(self.compiled)
        return found


@pytest.mark.parametrize("path", ["count", "encode"])
def test_cache_reset_between_lookup_and_classification_changes_nothing(path, monkeypatch):
    doc = "the cat and the dog of an old farm, 1993 ab cd"
    tok = Tokenizer(stop_words="english")
    expected = Tokenizer(stop_words="english").count(doc)
    expected_chunk = Tokenizer(stop_words="english")._encode_chunk([doc, doc])
    c = tok._compile()
    tok.count(doc)  # every type of ``doc`` is cached
    cache = _ResettingCache(c, c.type_maps[0], monkeypatch)
    c.type_maps = (cache, *c.type_maps[1:])
    if path == "count":
        assert tok.count(doc) == expected
    else:
        terms, ids, lengths = tok._encode_chunk([doc, doc])
        assert [terms[i] for i in ids] == [expected_chunk[0][i] for i in expected_chunk[1]]
        assert lengths.tolist() == expected_chunk[2].tolist()
    assert cache.fired


# ---------------------------------------------------------------------------- threads
@pytest.fixture
def tiny_switch_interval():
    """Switch threads as often as the interpreter can (the races need a switch at one exact point)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _in_threads(function, n_threads):
    barrier = threading.Barrier(n_threads)

    def work(i):
        barrier.wait()
        return function(i)

    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(work, range(n_threads)))


@pytest.mark.parametrize("max_cache", [None, 300])
def test_tokenizer_in_threads_equals_sequential(max_cache, tiny_switch_interval, monkeypatch):
    if max_cache is not None:  # (the cache resets while the other threads count)
        monkeypatch.setattr(tokenize_module, "_MAX_CACHE", max_cache)
    docs = _documents(8)
    expected = [Tokenizer(stop_words="english").count(d) for d in docs]
    expected_tokens = [Tokenizer(stop_words="english")(d) for d in docs]
    wrong = 0
    for trial in range(220):  # (before the fix, about one trial in ten went wrong)
        tok = Tokenizer(stop_words="english")
        if trial % 10 == 9:
            got = _in_threads(lambda i: tok(docs[i]), 8)
            wrong += sum(g != e for g, e in zip(got, expected_tokens))
        else:
            got = _in_threads(lambda i: tok.count(docs[i]), 8)
            wrong += sum(g != e for g, e in zip(got, expected))
    assert wrong == 0


@pytest.mark.parametrize("max_cache", [None, 300])
def test_fitted_vectorizer_in_threads_equals_sequential(max_cache, tiny_switch_interval, monkeypatch):
    if max_cache is not None:
        monkeypatch.setattr(tokenize_module, "_MAX_CACHE", max_cache)
    docs = _documents(16, seed=1)
    vocabulary = sorted(set(" ".join(docs).split()))  # (stop words and short tokens too: counted ones would show)
    batches = [docs[i: i + 1] for i in range(8)]
    expected = [Vectorizer(tokenizer=Tokenizer(stop_words="english"), vocabulary=vocabulary).fit(["x"]).transform(b)
                for b in batches]
    wrong = 0
    for _ in range(150):  # (before the fix, about one trial in twenty went wrong)
        vec = Vectorizer(tokenizer=Tokenizer(stop_words="english"), vocabulary=vocabulary).fit(["x"])
        got = _in_threads(lambda i: vec.transform(batches[i]), 8)
        wrong += sum((g != e).nnz != 0 for g, e in zip(got, expected))
    assert wrong == 0


# ---------------------------------------------------------------------------- start methods
_GENERATOR_UNDER_START_METHOD = """
import multiprocessing, random, sys
import topicvb.text._vectorize_pool as vp
from topicvb.text import Vectorizer

used = []


class Recording(vp.cf.ProcessPoolExecutor):
    def __init__(self, *args, **kwargs):
        context = kwargs.get("mp_context") or multiprocessing.get_context()
        used.append(context.get_start_method())
        super().__init__(*args, **kwargs)


if __name__ == "__main__":
    multiprocessing.set_start_method(sys.argv[1])
    # a stream of 8,000,000 characters (_PARALLEL_MIN_CHARS) or more goes to the pool; this one is smaller
    vp._PARALLEL_MIN_CHARS = 20_000
    vp._available_cpus = lambda: 8
    vp.cf.ProcessPoolExecutor = Recording
    rnd = random.Random(0)
    words = ["w" + "".join(rnd.choices("abcdefgh", k=5)) for _ in range(500)]
    docs = [" ".join(rnd.choices(words, k=60)) for _ in range(600)]
    one = Vectorizer(tokenizer=lambda s: s.split(), chunk_size=25).fit_transform(iter(docs))
    two = Vectorizer(tokenizer=lambda s: s.split(), chunk_size=25, n_jobs=2).fit_transform(iter(docs))
    assert used == ["fork"], used
    assert one.shape == two.shape and (one != two).nnz == 0
    print("same")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")
@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_stream_workers_do_not_depend_on_the_global_start_method(method):
    """A stream (``run_parallel``) forks its workers, as texts in memory (``run_split``) do, whatever start
    method the program chose: a tokenizer that cannot be pickled (a lambda) works, and the result is that of
    ``n_jobs=1``."""
    out = subprocess.run([sys.executable, "-c", _GENERATOR_UNDER_START_METHOD, method], capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["same"]
