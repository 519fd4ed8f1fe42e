"""Readers hunt, memory round: the peak memory of read_uci, iter_uci, read_matrix_market, read_ldac, Corpus.load and
``--vocab CORPUS.npz``, with the messages found on the way (a negative MatrixMarket count names its row and column, a
UCI id beyond 32 bits names its line, a vocabulary file is checked against the header before the data lines).

The peak tests read files of 200,000 entries under tracemalloc, with the readers' chunks set to 64 KB so that a chunk
is small beside the matrix (as it is beside real corpora), and bound the peak by a multiple of the result; each bound
lies between the ratio the old readers reached and the one they reach now (measured at this size, in the comments).
"""

from __future__ import annotations

import gc
import gzip
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb.datasets import (
    Corpus,
    iter_uci,
    read_ldac,
    read_matrix_market,
    read_uci,
    write_ldac,
    write_uci,
)
from topicvb.datasets import _ldac, _matrix_market, _uci

INT = "%%MatrixMarket matrix coordinate integer general\n"
SMALL_CHUNK = 64 * 1024


def _nbytes(X) -> int:
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def _peak(fn):
    """``fn()`` and the peak of the memory traced while it ran, in bytes."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """200,000 counts (4,000 documents of 50 terms, columns not sorted within a document) in UCI (sorted by docID, and
    shuffled), LDA-C and MatrixMarket files."""
    d = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(0)
    n_docs, per_doc, n_terms = 4000, 50, 5000
    rows = np.repeat(np.arange(n_docs), per_doc)
    cols = (np.repeat(rng.integers(0, n_terms, n_docs), per_doc) + np.tile(np.arange(per_doc) * 7, n_docs)) % n_terms
    X = sp.csr_matrix((rng.integers(1, 10, rows.size), (rows, cols)), shape=(n_docs, n_terms))
    vocab = [f"t{j}" for j in range(n_terms)]
    write_uci(X, vocab, d / "u.txt")
    write_ldac(X, vocab, d / "l.dat")
    lines = (d / "u.txt").read_text().splitlines()
    data = [lines[3 + i] for i in rng.permutation(len(lines) - 3)]
    (d / "shuffled.txt").write_text("\n".join(lines[:3] + data) + "\n")
    coo = X.tocoo()
    (d / "m.mtx").write_text(INT + f"{n_docs} {n_terms} {X.nnz}\n" + "".join(
        f"{r + 1} {c + 1} {v}\n" for r, c, v in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist())))
    return d, X


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(_uci, "_CHUNK_BYTES", SMALL_CHUNK)
    monkeypatch.setattr(_matrix_market, "_CHECK_CHUNK_BYTES", SMALL_CHUNK)
    monkeypatch.setattr(_ldac, "_CHUNK_BYTES", SMALL_CHUNK, raising=False)


# --------------------------------------------------------------------------- peak memory


@pytest.mark.parametrize(("name", "bound"), [("u.txt", 2.5), ("shuffled.txt", 3.0)])
def test_read_uci_peak_is_a_small_multiple_of_the_matrix(big, small_chunks, name, bound):
    # sorted lines go straight into the matrix's own arrays (1.61x; was 4.98x: every chunk's whole (n, 3) array kept
    # alive by its count column, then joined, then converted); unsorted ones through one COO-to-CSR step (2.34x; 5.00x)
    d, X = big
    corpus, peak = _peak(lambda: read_uci(d / name))
    assert (corpus.X != X).nnz == 0 and corpus.X.dtype == np.int64
    assert peak < bound * _nbytes(corpus.X)


def test_read_matrix_market_peak(big, small_chunks):
    # the text is let go before the COO-to-CSR conversion and int64 counts are not copied again (2.54x; was 3.30x)
    d, X = big
    corpus, peak = _peak(lambda: read_matrix_market(d / "m.mtx"))
    assert (corpus.X != X).nnz == 0 and corpus.X.dtype == np.int64
    assert peak < 2.9 * _nbytes(corpus.X)


def test_read_ldac_peak(big, small_chunks):
    # the int64 arrays are let go one by one as they are copied into the matrix (1.80x; was 2.63x)
    d, X = big
    corpus, peak = _peak(lambda: read_ldac(d / "l.dat"))
    assert (corpus.X != X).nnz == 0 and corpus.X.dtype == np.int64
    assert peak < 2.2 * _nbytes(corpus.X)


def test_iter_uci_holds_little_beyond_its_batches(big):
    # default chunks: one 256 KB chunk of lines at a time, the previous one let go before the next is read, and the
    # lines of a batch not joined again and again (3.4 MB; was 20.7 MB, the whole 2.6 MB file split into lines)
    d, X = big

    def stream():
        largest, batches = 0, []
        for batch in iter_uci(d / "u.txt", batch_size=100):
            largest = max(largest, _nbytes(batch))
            batches.append(batch.nnz)
        return largest, batches

    (largest, batches), peak = _peak(stream)
    assert sum(batches) == X.nnz and largest < 100_000
    assert peak < 10 * 2**20


def _texts_corpus(path, rng, n_docs=4000):
    texts = [" ".join(rng.choice(["alpha", "beta", "gamma", "delta"], 60)) for _ in range(n_docs)]
    X = sp.random(n_docs, 50, density=0.1, format="csr", random_state=0)
    X.data[:] = 1
    Corpus(X=X, vocabulary=[f"t{j}" for j in range(50)], texts=texts,
           text_options={"stop_words": "english", "stem": "none", "phrases": False, "clean_email": False}).save(path)
    return texts


def test_corpus_load_decodes_texts_without_copying_them(tmp_path):
    # the texts are decoded from a memoryview of their bytes, not a copy of them (2.59x the texts; was 3.42x)
    texts = _texts_corpus(tmp_path / "c.npz", np.random.default_rng(0))
    corpus, peak = _peak(lambda: Corpus.load(tmp_path / "c.npz"))
    assert corpus.texts == texts
    assert peak < 3.0 * sum(map(len, texts))


def test_cli_vocab_reads_only_the_terms_of_a_corpus(tmp_path, monkeypatch):
    # --vocab CORPUS.npz read the whole corpus (3.39x its texts) for its terms; now only the terms (0.06x)
    from topicvb._cli_inputs import read_target_vocabulary

    texts = _texts_corpus(tmp_path / "c.npz", np.random.default_rng(0))
    read_target_vocabulary(tmp_path / "c.npz")  # (imports)
    target, peak = _peak(lambda: read_target_vocabulary(tmp_path / "c.npz"))
    assert target.terms == [f"t{j}" for j in range(50)] and target.options["stop_words"] == "english"
    assert peak < 0.5 * sum(map(len, texts))
    monkeypatch.setattr(Corpus, "load", lambda *a, **k: pytest.fail("the whole corpus was read"))
    assert read_target_vocabulary(tmp_path / "c.npz").terms == target.terms


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize("transpose", [False, True])
def test_mm_negative_count_names_its_row_and_column(tmp_path, transpose):
    # the message gave only how many; counts are summed first (1 3 is 1 in all), so a line may not be the culprit
    path = tmp_path / "m.mtx"
    path.write_text(INT + "4 4 6\n1 1 2\n1 3 -1\n4 2 -1\n2 4 -5\n2 4 1\n1 3 2\n")
    with pytest.raises(ValueError, match=r"'.*m\.mtx' expects non-negative term counts; it has 2 negative entries; "
                                         r"the first, in row order, is -4 at row 2, column 4\.$"):
        read_matrix_market(path, transpose=transpose)


@pytest.mark.parametrize(("header", "line", "what"), [
    ("2\n3000000000\n2\n", "1 2500000000 1", "wordID 2500000000"),
    ("3000000000\n3\n2\n", "2500000000 2 1", "docID 2500000000"),
])
def test_uci_id_beyond_32_bits_names_the_file_and_line(tmp_path, header, line, what):
    # the id wrapped around in int32: "negative axis 1 index: -1794967297", naming neither file nor line
    path = tmp_path / "d.txt"
    path.write_text(header + "1 1 3\n" + line + "\n")
    with pytest.raises(ValueError, match=rf"UCI file '.*d\.txt', line 5: {what} is too large; read_uci stores ids "
                                         r"as 32-bit integers, so they must be at most 2147483648"):
        read_uci(path)


def test_uci_vocabulary_is_checked_before_the_data_lines(tmp_path):
    # as read_ldac does: a wrong or missing vocabulary file is said at once, not after every data line was read
    path = tmp_path / "d.txt"
    path.write_text("2\n3\n2\n1 1 1\n2 2 x\n")  # (and a malformed line, which the old reader reported first)
    (tmp_path / "v.txt").write_text("a\nb\n")
    with pytest.raises(ValueError, match=r"vocab_path '.*v\.txt' has 2 terms, but the header of '.*d\.txt' says W=3"):
        read_uci(path, tmp_path / "v.txt")
    with pytest.raises(FileNotFoundError, match="missing"):
        read_uci(path, tmp_path / "missing.txt")


def test_mm_vocabulary_is_checked_against_the_header_before_the_data_lines(tmp_path):
    path = tmp_path / "m.mtx"
    path.write_text(INT + "% a comment\n\n2 3 2\n1 1 1\n2 3 2.5\n")  # (a malformed line 6)
    (tmp_path / "v.txt").write_text("a\nb\n")
    with pytest.raises(ValueError, match=r"vocab_path '.*v\.txt' has 2 terms, but the matrix in '.*m\.mtx' has 3 "
                                         r"columns \(terms\); they must match\. Did you mean transpose=True\?"):
        read_matrix_market(path, tmp_path / "v.txt")
    with pytest.raises(FileNotFoundError, match="missing"):
        read_matrix_market(path, tmp_path / "missing.txt")
    # transposed, the two terms match the header: the data lines are read, and the malformed one is named
    with pytest.raises(ValueError, match=r"line 6: expected 'row column count'"):
        read_matrix_market(path, tmp_path / "v.txt", transpose=True)


# --------------------------------------------------------------------------- the same results (pass before and after)


def test_read_uci_same_matrix_sorted_shuffled_and_compressed(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(_uci, "_CHUNK_BYTES", 64)  # (a few lines a chunk)
    rng = np.random.default_rng(1)
    docs = np.sort(rng.integers(1, 7, 300))
    words, counts = rng.integers(1, 9, 300), rng.integers(0, 4, 300)  # duplicates and zeros
    expected = sp.coo_matrix((counts, (docs - 1, words - 1)), shape=(8, 9)).tocsr()
    expected.eliminate_zeros()
    lines = [f"{a} {b} {c}" for a, b, c in zip(docs, words, counts)]
    for name, order in (("sorted.txt", range(300)), ("shuffled.txt", rng.permutation(300))):
        (tmp_path / name).write_text("8\n9\n300\n" + "\n".join(lines[i] for i in order) + "\n\n")
        X = read_uci(tmp_path / name).X
        assert X.dtype == np.int64 and X.indices.dtype == np.int32 and X.has_canonical_format
        assert np.array_equal(X.toarray(), expected.toarray()) and X.nnz == expected.nnz
    assert "duplicate (docID, wordID) pairs were summed" in caplog.text
    # a compressed file whose text is far larger than the room first made for it (16 times the file): the arrays grow
    (tmp_path / "same.txt.gz").write_bytes(gzip.compress(b"2\n2\n200000\n" + b"2 1 1\n" * 200_000))
    X = read_uci(tmp_path / "same.txt.gz").X
    assert X.toarray().tolist() == [[0, 0], [200_000, 0]]


@pytest.mark.parametrize(("nnz", "n_lines"), [(10**12, 3), (2, 3), (4, 3)])
def test_read_uci_wrong_nnz_is_said_after_the_whole_file(tmp_path, nnz, n_lines):
    # (the arrays are sized from NNZ, but no larger than the file can hold: a wrong header allocates nothing more)
    path = tmp_path / "d.txt"
    path.write_text(f"2\n2\n{nnz}\n1 1 1\n2 2 2\n2 1 1\n")
    with pytest.raises(ValueError, match=rf"the header says NNZ={nnz} data lines, but the file has {n_lines}\."):
        read_uci(path)
    path.write_text(f"2\n2\n{nnz}\n1 1 1\n2 2 2\n2 1 x\n")  # a malformed line is still said first
    with pytest.raises(ValueError, match=r"line 6: expected 'docID wordID count'"):
        read_uci(path)


def test_iter_uci_batches_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(_uci, "_CHUNK_BYTES", 64)
    rng = np.random.default_rng(2)
    docs = np.sort(rng.integers(1, 12, 200))
    words, counts = rng.integers(1, 6, 200), rng.integers(0, 3, 200)
    path = tmp_path / "d.txt"
    path.write_text("13\n5\n200\n" + "".join(f"{a} {b} {c}\n" for a, b, c in zip(docs, words, counts)))
    expected = sp.coo_matrix((counts, (docs - 1, words - 1)), shape=(13, 5)).toarray()
    for batch_size, dtype in ((1, np.float64), (4, np.float64), (5, np.int32), (100, np.float32)):
        batches = list(iter_uci(path, batch_size=batch_size, dtype=dtype))
        assert [b.shape[0] for b in batches] == [min(batch_size, 13 - s) for s in range(0, 13, batch_size)]
        assert all(b.dtype == dtype and b.indices.dtype == np.int32 and b.has_canonical_format for b in batches)
        assert np.array_equal(sp.vstack(batches).toarray(), expected)


def test_read_ldac_numpy_and_line_by_line_chunks_agree(tmp_path, monkeypatch):
    # plain chunks are parsed with NumPy, others line by line: the same matrix, and the same line named in an error
    monkeypatch.setattr(_ldac, "_CHUNK_BYTES", 200, raising=False)
    rng = np.random.default_rng(3)
    lines = []
    for _ in range(300):
        m = int(rng.integers(0, 5))
        lines.append(" ".join([str(m)] + [f"{rng.integers(0, 20)}:{rng.integers(0, 9)}" for _ in range(m)]))
    odd = list(lines)
    odd[150] = odd[150].replace(" ", "\t") if " " in odd[150] else "+0"  # read only line by line
    odd[151] = "00"  # (0, as int() reads it)
    expected = read_ldac(_write(tmp_path / "a.dat", lines), n_terms=20).X
    X = read_ldac(_write(tmp_path / "b.dat", odd, end=""), n_terms=20).X  # (no final line break)
    assert np.array_equal(X[np.r_[0:150, 152:300]].toarray(), expected[np.r_[0:150, 152:300]].toarray())
    assert np.array_equal(X[150].toarray(), expected[150].toarray()) and X[151].nnz == 0
    for line_no, text, match in [
        (250, "2 1:2", r"line 250: the leading count M=2 disagrees with the 1 id:count pairs"),
        (260, "1 20:1", r"line 260: term id 20 is out of range; 0-based ids must be between 0 and 19"),
        (270, "1 3:99999999999999999999", r"line 270: count 99999999999999999999 is too large"),
        (280, "1 3:x", r"line 280: expected 'M id:count id:count \.\.\.'"),
        (200, "", r"line 200 is blank"),
    ]:
        bad = list(lines)
        bad[line_no - 1] = text
        with pytest.raises(ValueError, match=match):
            read_ldac(_write(tmp_path / "c.dat", bad), n_terms=20)
    assert read_ldac(_write(tmp_path / "d.dat", lines + ["", ""]), n_terms=20).X.shape == (300, 20)


def _write(path, lines, end="\n"):
    path.write_text("\n".join(lines) + end)
    return path


def test_corpus_save_and_load_strings_as_before(tmp_path):
    texts = ["", "plain", "café ☕", "\ud800 lone surrogate", "x" * 1000]
    corpus = Corpus(X=sp.csr_matrix(np.ones((5, 2))), vocabulary=["a", "é"], texts=texts,
                    doc_ids=[str(i) for i in range(5)], labels=["p", "q", "p", "r", "q"])
    corpus.save(tmp_path / "c.npz")
    with np.load(tmp_path / "c.npz") as z:
        assert z["texts_bytes"].dtype == np.uint8
        assert z["texts_offsets"].tolist() == np.cumsum([0] + [len(t.encode("utf-8", "surrogatepass"))
                                                               for t in texts]).tolist()
    back = Corpus.load(tmp_path / "c.npz")
    assert back.texts == texts and back.vocabulary == ["a", "é"] and list(back.labels) == corpus.labels.tolist()
    Corpus(X=sp.csr_matrix((0, 1)), vocabulary=["a"], texts=[]).save(tmp_path / "e.npz")
    assert Corpus.load(tmp_path / "e.npz").texts == []
