"""Every WMT21 system output scored as sacreBLEU 2.6.0 scores it, to the last bit.

For each language pair: every system against all its references and against
each single reference, with the target language's default tokenizer; the
per-segment statistics, every score field and the signature must be identical.
The same through the command line (all references, JSON output).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections import defaultdict

import pytest

import truebleu
from conftest import needs_wmt21, wmt21_dir
from truebleu.cli import main as cli_main

sacrebleu = pytest.importorskip("sacrebleu")

pytestmark = needs_wmt21

NAME = re.compile(r"^(?P<set>[^.]+)\.(?P<pair>[a-z]+-[a-z]+)\.(?P<kind>hyp|ref)"
                  r"\.(?P<name>.+)\.(?P<lang>[a-z]+)$")


def _pairs() -> dict:
    pairs: dict = defaultdict(lambda: {"systems": [], "refs": []})
    root = wmt21_dir()
    if not root.is_dir():
        return {}
    for folder, kind in (("system-outputs", "systems"), ("references", "refs")):
        for path in sorted((root / folder).iterdir()):
            match = NAME.match(path.name)
            if match:
                pairs[f"{match['set']}.{match['pair']}"][kind].append(path)
    return dict(sorted(pairs.items()))


PAIRS = _pairs()


def read(path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip() for line in handle]


def target_language(pair_key: str) -> str:
    return pair_key.split(".")[1].split("-")[1]


def reference_configs(ref_paths):
    """All references together, then each alone (when there are several)."""
    configs = [("all", ref_paths)]
    if len(ref_paths) > 1:
        configs += [(path.name, [path]) for path in ref_paths]
    return configs


# sacreBLEU is slow: each (system, reference set) is scored by it once per session
_ORACLE: dict = {}


def oracle(pair_key: str, config: str, ref_paths, system_path):
    """sacreBLEU's per-segment statistics, score and signature for one system."""
    key = (pair_key, config)
    if key not in _ORACLE:
        metric = sacrebleu.BLEU(trg_lang=target_language(pair_key),
                                references=[read(p) for p in ref_paths])
        _ORACLE[key] = (metric, {})
    metric, done = _ORACLE[key]
    if system_path.name not in done:
        stats = metric._extract_corpus_statistics(read(system_path), None)
        score = metric._aggregate_and_compute(stats)
        signature = metric.get_signature().format().replace(
            f"version:{sacrebleu.__version__}", f"version:truebleu-{truebleu.__version__}")
        done[system_path.name] = (stats, score, signature)
    return done[system_path.name]


@pytest.mark.parametrize("pair_key", list(PAIRS) or ["no-data"])
def test_every_system_matches_sacrebleu(pair_key):
    pair = PAIRS[pair_key]
    lang = target_language(pair_key)
    if lang == "ja":
        pytest.importorskip("MeCab")
    for config, ref_paths in reference_configs(pair["refs"]):
        ours = truebleu.BLEU(trg_lang=lang, references=[read(path) for path in ref_paths])
        for path in pair["systems"]:
            where = f"{path.name} vs {config}"
            their_stats, b, their_signature = oracle(pair_key, config, ref_paths, path)
            our_stats = ours.corpus_statistics(read(path))
            assert list(our_stats.rows()) == their_stats, where
            a = ours.score_from_statistics(our_stats.sum())
            assert (a.score, a.counts, a.totals, a.precisions, a.bp, a.sys_len, a.ref_len) == \
                   (b.score, b.counts, b.totals, b.precisions, b.bp, b.sys_len, b.ref_len), where
            assert ours.get_signature().format() == their_signature, where


def run_cli(argv) -> str:
    """What ``truebleu ARGV`` prints, run in this process."""
    buffer = io.BytesIO()
    wrapper = io.TextIOWrapper(buffer, encoding="utf-8")
    with contextlib.redirect_stdout(wrapper):
        status = cli_main(argv)
    wrapper.flush()
    assert status == 0
    return buffer.getvalue().decode("utf-8")


@pytest.mark.parametrize("pair_key", list(PAIRS) or ["no-data"])
def test_cli_matches_sacrebleu(pair_key):
    pair = PAIRS[pair_key]
    if target_language(pair_key) == "ja":
        pytest.importorskip("MeCab")
    ref_paths = pair["refs"]
    for path in pair["systems"]:
        _, score, signature = oracle(pair_key, "all", ref_paths, path)
        expected = score.format(1, False, signature, is_json=True)
        got = run_cli([*map(str, ref_paths), "-i", str(path), "-l", pair_key.split(".")[1], "-q"])
        assert got == expected + "\n", path.name
