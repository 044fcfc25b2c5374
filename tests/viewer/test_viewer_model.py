"""The viewer's numbers are truebleu's API numbers (and so sacreBLEU's)."""

from __future__ import annotations

import base64
import hashlib
import random
import re

import pytest

np = pytest.importorskip("numpy")

from page_tokens import joined_tokens  # noqa: E402

import truebleu  # noqa: E402
from conftest import needs_wmt21, wmt21_dir  # noqa: E402
from truebleu.metrics.bleu import BLEUBatchScorer  # noqa: E402
from truebleu.metrics.bleu.kernels import kernels  # noqa: E402
from truebleu.metrics.bleu.spec import segment_tokens  # noqa: E402
from truebleu.significance import bootstrap_ci, compare_all  # noqa: E402
from truebleu.tokenizers import get_tokenizer  # noqa: E402
from truebleu.viewer import report  # noqa: E402
from truebleu.viewer.page import content_security_policy, decode_payload, page_assets  # noqa: E402

WORDS = "the a cat dog sat on mat , . is was big small red house the the of".split()


def generated_corpus(seed: int, n: int = 60, n_systems: int = 3, n_refs: int = 2):
    rng = random.Random(seed)

    def line():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 14)))

    refs = [[line() for _ in range(n)] for _ in range(n_refs)]
    systems = {f"sys{k}": [line() for _ in range(n)] for k in range(n_systems)}
    return refs, systems


@pytest.mark.parametrize("options", [
    {}, {"lowercase": True}, {"tokenize": "char"}, {"smooth_method": "floor", "smooth_value": 0.2},
    {"smooth_method": "add-k"}, {"max_ngram_order": 3}, {"tokenize": "intl"},
])
def test_payload_numbers_are_the_api_numbers(options, backend):
    refs, systems = generated_corpus(7)
    refs[1][3] = None  # a segment with one reference fewer
    rep = report(refs, systems, doc_ids=[f"d{i // 7}" for i in range(60)], n_samples=200,
                 backend=backend, **options)
    data = rep.data.payload()
    bleu = truebleu.BLEU(**options)
    scorer_options = {k: v for k, v in options.items()}
    for s in data["systems"]:
        hyps = systems[s["name"]]
        want = truebleu.corpus_bleu(hyps, refs, **options)
        got = s["corpus"]
        assert got["score"] == want.score
        assert got["precisions"] == want.precisions
        assert got["bp"] == want.bp and got["ratio"] == want.ratio
        assert (got["sys_len"], got["ref_len"]) == (want.sys_len, want.ref_len)
        for i, hyp in enumerate(hyps):
            seg_refs = [r[i] for r in refs if r[i] is not None]
            sent = truebleu.BLEU(**{**scorer_options, "effective_order": True})
            assert s["sentence_bleu"][i] == sent.corpus_score([hyp], [[r] for r in seg_refs]).score
        for i in random.Random(1).sample(range(60), 8):
            keep = [j for j in range(60) if j != i]
            without = truebleu.corpus_bleu([hyps[j] for j in keep], [[r[j] for j in keep] for r in refs],
                                           **options).score
            assert s["bleu_without"][i] == without
    assert data["signature"] == bleu.get_signature().format() if bleu.num_refs else True


def test_signature_and_sentence_signature():
    refs, systems = generated_corpus(3)
    rep = report(refs, systems, n_samples=50)
    metric = truebleu.BLEU()
    metric.corpus_score(systems["sys0"], refs)
    assert rep.data.signature == metric.get_signature().format()
    assert "eff:yes" in rep.data.sentence_signature


def test_documents_and_significance_are_the_api_numbers():
    refs, systems = generated_corpus(11, n=80)
    docs = [f"doc{i % 5}" for i in range(80)]
    rep = report(refs, systems, doc_ids=docs, n_samples=300, seed=99)
    data = rep.data.payload()
    names = data["documents"]["names"]
    assert names == ["doc0", "doc1", "doc2", "doc3", "doc4"]
    for k, s in enumerate(data["systems"]):
        for d, name in enumerate(names):
            rows = [i for i in range(80) if docs[i] == name]
            want = truebleu.corpus_bleu([systems[s["name"]][i] for i in rows],
                                        [[r[i] for i in rows] for r in refs]).score
            assert data["documents"]["bleu"][k][d] == want
    metric = truebleu.BLEU(references=refs)
    scorer = BLEUBatchScorer.from_metric(metric)
    stats = [(name, metric.corpus_statistics(hyps)) for name, hyps in systems.items()]
    result = compare_all(stats, scorer, n_samples=300, seed=99)
    index = {name: k for k, name in enumerate(systems)}
    assert data["significance"]["pairs"] == [[index[p.a], index[p.b], p.p_value] for p in result.pairs]
    for summary in result.systems:
        corpus = data["systems"][index[summary.name]]["corpus"]
        assert (corpus["ci_mean"], corpus["ci"]) == (summary.mean, summary.ci)
        assert (corpus["rank"], corpus["cluster"]) == (summary.rank, summary.cluster)


def test_length_buckets_are_bootstrap_ci_of_each_bucket():
    refs, systems = generated_corpus(5, n=90)
    rep = report(refs, systems, n_samples=200, seed=5)
    buckets = rep.data.payload()["buckets"]["length"]
    metric = truebleu.BLEU(references=refs)
    scorer = BLEUBatchScorer.from_metric(metric)
    tokenizer = get_tokenizer("13a")
    lengths = [len(segment_tokens(line, tokenizer, False)) for line in refs[0]]
    bounds = [0, 10, 20, 30, 40, 50]
    for k, hyps in enumerate(systems.values()):
        matrix = metric.corpus_statistics(hyps).to_numpy()
        for b, low in enumerate(bounds):
            high = bounds[b + 1] if b + 1 < len(bounds) else 10**9
            rows = [i for i, n in enumerate(lengths) if low <= n < high]
            assert buckets["segments"][b] == len(rows)
            if not rows:
                assert buckets["bleu"][k][b] is None
                continue
            ci = bootstrap_ci(matrix[rows], scorer, 200, seed=5)
            assert buckets["bleu"][k][b] == ci.score
            assert buckets["ci"][k][b] == ci.ci


def test_frequency_buckets_count_words_as_defined():
    refs = [["a a b c", "c d", "a"]]
    systems = {"x": ["a b b z", "c", ""], "y": ["a a b c", "c d", "a"]}
    rep = report(refs, systems, n_samples=50, tokenize="none")
    freq = rep.data.payload()["buckets"]["frequency"]
    # reference frequencies: a 3, c 2, b 1, d 1 -> buckets "1" (b, d, unseen z), "2-3" (a, c)
    assert freq["ref_words"][:2] == [2, 5]
    # x: bucket "1": hyp b,b,z (3), matched min(2,1)=1 b; ref b,d (2) -> P 1/3, R 1/2
    p, r = 1 / 3, 1 / 2
    assert freq["f"][0][0] == pytest.approx(200 * p * r / (p + r))
    assert freq["f"][1][0] == 100.0 and freq["f"][1][1] == 100.0
    assert freq["f"][0][2] is None  # no word in that bucket at all


def test_tokens_are_exactly_what_the_statistics_counted(backend):
    refs, systems = generated_corpus(13)
    refs[0][4] = "Hello, world! It's 3.5 km — “quoted” (x)."
    systems["sys0"][4] = "hello , World ! it 's 3.5km"
    rep = report(refs, systems, n_samples=20, backend=backend, lowercase=True)
    data = rep.data.payload()
    tokenizer = get_tokenizer("13a")
    for stream, text in [(data["references"][0], refs[0]), (data["systems"][0], systems["sys0"])]:
        for i, line in enumerate(text):
            want = " ".join(segment_tokens(line, tokenizer, True))
            got = joined_tokens(stream["text"][i], stream["tokens"][i])
            assert got == want
    assert kernels.load(backend).tokens(["a b"], tokenizer, False) == [["a", "b"]]


def test_report_refuses_bad_inputs():
    refs, systems = generated_corpus(1, n=5)
    with pytest.raises(ValueError, match="one line per segment"):
        report(refs, {"a": systems["sys0"][:4]})
    with pytest.raises(ValueError, match="at least one system"):
        report(refs, {})
    with pytest.raises(ValueError, match="document ids has 2"):
        report(refs, systems, doc_ids=["a", "b"])


def decode_page(html: str) -> dict:
    block = re.search(r'<script type="application/octet-stream" id="truebleu-payload">(.*?)</script>',
                      html, re.S).group(1)
    return decode_payload(base64.b64decode(block))


def test_page_is_self_contained_with_a_strict_policy():
    refs, systems = generated_corpus(2, n=10)
    systems = {"<b>sys</b>": systems["sys0"], "x\"'><script>": systems["sys1"]}
    refs[0][0] = "</script><script>alert(1)</script> \ud800 lone"
    rep = report(refs, systems, n_samples=20, title="<script>alert('t')</script>")
    html = rep.html()
    assert "<script>alert" not in html.replace("</script><script>alert(1)</script>", "")
    assert "&lt;script&gt;alert(&#x27;t&#x27;)&lt;/script&gt;" in html
    # no URL but the SVG namespace name (an identifier, never fetched)
    assert set(re.findall(r"https?://[^\s\"'<>]*", html)) == {"http://www.w3.org/2000/svg"}
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html).group(1)
    policy = policy.replace("&#x27;", "'")
    for body in scripts + styles:
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    assert "unsafe" not in policy
    data = decode_page(html)
    assert data["references"][0]["text"][0] == refs[0][0]  # the lone surrogate survives
    assert [s["name"] for s in data["systems"]] == list(systems)
    assert content_security_policy("serve").count("connect-src 'self'") == 1
    assert "</script" not in page_assets()[2].lower()


def test_jupyter_display_is_a_sandboxed_frame():
    refs, systems = generated_corpus(2, n=5)
    frame = report(refs, systems, n_samples=10)._repr_html_()
    assert frame.startswith("<iframe srcdoc=\"") and 'sandbox="allow-scripts allow-downloads"' in frame
    assert "<script>" not in frame  # escaped inside srcdoc


def test_paired_test_on_a_subset_is_the_api_test():
    from truebleu.significance import paired_bootstrap

    refs, systems = generated_corpus(21, n=70)
    rep = report(refs, systems, n_samples=100, seed=4)
    rows = list(range(0, 70, 3))
    got = rep.paired_test(0, 2, rows)
    metric = truebleu.BLEU(references=refs)
    matrices = [metric.corpus_statistics(h).to_numpy()[rows] for h in systems.values()]
    want = paired_bootstrap(matrices[0], matrices[2], BLEUBatchScorer.from_metric(metric),
                            n_samples=100, seed=4)
    assert (got["p"], got["delta"], got["segments"]) == (want.p_value, want.delta, len(rows))
    with pytest.raises(ValueError):
        rep.paired_test(0, 5, rows)
    with pytest.raises(ValueError):
        rep.paired_test(0, 1, [70])


def test_save_is_atomic_and_leaves_no_partial_file(tmp_path):
    refs, systems = generated_corpus(2, n=5)
    path = report(refs, systems, n_samples=10).save(tmp_path / "r.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


@needs_wmt21
def test_wmt21_en_de_corpus_scores_equal_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    data_dir = wmt21_dir()

    def lines(path):
        return path.read_text(encoding="utf-8").split("\n")[:-1]

    refs = [lines(data_dir / "references" / f"newstest2021.en-de.ref.{k}.de") for k in "ACD"]
    paths = sorted((data_dir / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:6]
    systems = {p.name: lines(p) for p in paths}
    rep = report(refs, systems, n_samples=100)
    for s in rep.data.payload()["systems"]:
        want = sacrebleu.corpus_bleu(systems[s["name"]], refs)
        assert s["corpus"]["score"] == want.score
        hyps = systems[s["name"]]
        for i in range(0, len(hyps), 97):
            assert s["sentence_bleu"][i] == sacrebleu.sentence_bleu(hyps[i], [r[i] for r in refs]).score


def test_report_command_reads_files_and_names_systems(tmp_path, capsys):
    import gzip as gz

    from truebleu.cli import viewer as cli

    refs, systems = generated_corpus(8, n=12)
    (tmp_path / "test.ref.en").write_text("\n".join(refs[0]) + "\n", encoding="utf-8")
    with gz.open(tmp_path / "test.hyp.alpha.en.gz", "wt", encoding="utf-8") as handle:
        handle.write("\n".join(systems["sys0"]) + "\n")
    (tmp_path / "test.hyp.beta.en").write_text("\n".join(systems["sys1"]) + "\n", encoding="utf-8")
    (tmp_path / "docs").write_text("".join(f"d{i // 4}\n" for i in range(12)), encoding="utf-8")
    out = tmp_path / "r.html"
    args = ["report", str(tmp_path / "test.ref.en"), "-i", str(tmp_path / "test.hyp.alpha.en.gz"),
            str(tmp_path / "test.hyp.beta.en"), "--doc-ids", str(tmp_path / "docs"), "-o", str(out),
            "--n-samples", "20", "-lc"]
    assert cli.main(args) == 0
    assert capsys.readouterr().err.endswith("; 2 systems, 12 segments)\n")
    data = decode_page(out.read_text(encoding="utf-8"))
    assert data["title"] == "2 systems against test.ref.en"
    assert [s["name"] for s in data["systems"]] == ["alpha", "beta"]
    assert data["options"]["lowercase"] is True and "case:lc" in data["signature"]
    assert data["documents"]["names"] == ["d0", "d1", "d2"]
    want = truebleu.corpus_bleu(systems["sys0"], [refs[0]], lowercase=True).score
    assert data["systems"][0]["corpus"]["score"] == want
    # a file of another length: one clear line naming it, exit status 1, no report written
    (tmp_path / "short").write_text("a\n", encoding="utf-8")
    assert cli.main(["report", str(tmp_path / "test.ref.en"), "-i", str(tmp_path / "short"),
                     "-o", str(tmp_path / "x.html")]) == 1
    assert "short has 1 lines" in capsys.readouterr().err
    # one system: "1 system", as a person writes it
    assert cli.main(["report", str(tmp_path / "test.ref.en"), "-i", str(tmp_path / "test.hyp.beta.en"),
                     "-o", str(tmp_path / "one.html"), "--n-samples", "20"]) == 0
    assert capsys.readouterr().err.endswith("; 1 system, 12 segments)\n")
    assert decode_page((tmp_path / "one.html").read_text(encoding="utf-8"))["title"] == (
        "1 system against test.ref.en")
    assert not (tmp_path / "x.html").exists()
    assert cli.system_names(["a/newstest2021.en-de.hyp.Online-W.de",
                             "b/newstest2021.en-de.hyp.UEdin.de"]) == ["Online-W", "UEdin"]
