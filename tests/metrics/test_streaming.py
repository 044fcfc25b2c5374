"""Chunked scoring gives the whole-file numbers, and refuses unequal files."""

from __future__ import annotations

import gzip

import pytest

import truebleu
from truebleu.io import InputError
from truebleu.metrics.streaming import score_files

HYPS = [f"the cat {i} sat on the mat ." if i % 3 else f"line {i}, with 1,000.5 things" for i in range(57)]
REFS_A = [f"the cat {i} is on the mat." for i in range(57)]
REFS_B = [f"a cat {i % 7} sat on a mat" for i in range(57)]


def write(path, lines, opener=open):
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("chunk", [1, 5, 56, 57, 1000])
def test_chunks_give_the_whole_corpus_score(tmp_path, chunk, backend):
    hyp = write(tmp_path / "hyp.gz", HYPS, gzip.open)
    refs = [write(tmp_path / "a.txt", REFS_A), write(tmp_path / "b.txt", REFS_B)]
    metric = truebleu.BLEU(backend=backend)
    result = score_files(hyp, refs, metric, chunk_lines=chunk, keep_statistics=True)
    whole = truebleu.corpus_bleu(HYPS, [REFS_A, REFS_B], backend=backend)
    assert result.score.score == whole.score and str(result.score) == str(whole)
    assert result.segments == len(HYPS) and len(result.statistics) == len(HYPS)
    assert result.statistics == truebleu.BLEU(backend=backend).corpus_statistics(HYPS, [REFS_A, REFS_B])


def test_statistics_are_not_kept_unless_asked(tmp_path):
    hyp, ref = write(tmp_path / "h", HYPS), write(tmp_path / "r", REFS_A)
    assert score_files(hyp, [ref], chunk_lines=10).statistics is None


@pytest.mark.parametrize("chunk", [1, 10, 100])
def test_unequal_files_report_both_counts(tmp_path, chunk):
    hyp, ref = write(tmp_path / "h", HYPS), write(tmp_path / "r", REFS_A[:-2])
    with pytest.raises(InputError, match=f"{hyp} has 57 lines but {ref} has 55 lines"):
        score_files(hyp, [ref], chunk_lines=chunk)


def test_empty_file(tmp_path):
    hyp, ref = write(tmp_path / "h", []), write(tmp_path / "r", [])
    with pytest.raises(InputError, match="empty"):
        score_files(hyp, [ref])
