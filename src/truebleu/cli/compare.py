"""``truebleu compare REF... -i SYS1 SYS2 ...``: all pairs, clusters, reports.

``-m NAME`` picks any registered metric (:data:`truebleu.metrics.METRICS`); the
metric flags, ``--backend`` and ``--threads`` are the scoring command's
(:mod:`.options`). compare's own defaults stay: ``-w 2`` decimals, and BLEU's
``--force`` on (no warning about tokenized-looking output).

``main(argv)`` takes the arguments after the word ``compare`` and returns the
exit status (0 fine, 1 bad input, 2 bad usage).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from ..core.progress import Progress, set_quiet
from ..significance.formats import FORMATS, render
from .options import (
    UsageError,
    add_backend_argument,
    add_max_line_length_argument,
    add_metric_arguments,
    add_threads_argument,
    check_max_line_length,
    check_threads,
    make_metric,
)


def _count(minimum: int):
    """An argparse type: an integer >= ``minimum`` (else a usage error naming the bound)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    parse.__name__ = "integer"
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="truebleu compare",
        description="Compare every pair of systems with a paired significance test and "
                    "rank them into clusters of systems that are not significantly different.")
    parser.add_argument("refs", nargs="+", metavar="REF", help="reference file(s)")
    parser.add_argument("-i", "--input", nargs="+", required=True, metavar="SYS",
                        help="system output files (at least two)")
    add_max_line_length_argument(parser)
    parser.add_argument("--test", choices=("bs", "ar"), default="bs",
                        help="paired bootstrap (bs, default) or approximate randomization (ar)")
    parser.add_argument("-n", "--samples", type=_count(1), default=None,
                        help="resamples (bs, default 1000) or trials (ar, default 10000)")
    parser.add_argument("--seed", default=None,
                        help="random seed (default: $SACREBLEU_SEED or 12345; 'none' for OS entropy)")
    parser.add_argument("--bootstrap-statistic", choices=("centered", "sacrebleu"),
                        default="centered",
                        help="bootstrap p-value statistic: centered (default; nominal type-I "
                             "error) or sacrebleu (sacreBLEU's -pbs statistic, ties counted)")
    parser.add_argument("--holm", action="store_true",
                        help="Holm-Bonferroni correction over all pairs")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    parser.add_argument("--sentence", action="store_true",
                        help="add segment-level comparisons of each system with the first")
    parser.add_argument("-f", "--format", choices=FORMATS, default="text")
    # compare's own reporting flag: two decimals by default (the scoring command's -w is 1)
    parser.add_argument("-w", "--width", type=_count(0), default=2, help="decimals shown")
    parser.add_argument("-l", "--language-pair", dest="langpair", default=None,
                        help="source-target language pair; the target picks BLEU's default "
                             "tokenizer as in the scoring command (zh, ja-mecab, ko-mecab, else 13a)")
    add_metric_arguments(parser)  # -m NAME and every metric's flags, as the scoring command has them
    # compare never warned about tokenized-looking output: BLEU's --force is on
    parser.set_defaults(force=True)
    running = parser.add_argument_group("Statistics backend")
    add_backend_argument(running)
    add_threads_argument(running)
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bars (they are drawn only on a terminal anyway)")
    return parser


SEPARATORS = "._-"


def _names(paths: Sequence[str]) -> list[str]:
    """Short, unique system names: file names without their shared prefix and suffix.

    ``newstest2021.en-de.hyp.UEdin.de`` and ``...hyp.ICL.de`` become ``UEdin``
    and ``ICL``; the full paths are used when file names clash.
    """
    base = [os.path.basename(p) for p in paths]
    if len(set(base)) != len(base):
        return list(paths)
    # cut only at separators, so that "hyp.BUPT" and "hyp.Borderline" keep their "B"
    prefix = os.path.commonprefix(base)
    prefix = prefix[:max(prefix.rfind(c) for c in SEPARATORS) + 1]
    suffix = os.path.commonprefix([b[::-1] for b in base])[::-1]
    suffix = suffix[min((i for i in (suffix.find(c) for c in SEPARATORS) if i >= 0),
                        default=len(suffix)):]
    if len(prefix) + len(suffix) >= min(len(b) for b in base):
        return base
    short = [b[len(prefix):len(b) - len(suffix)] for b in base]
    return short if len(set(short)) == len(short) else base


def run(args: argparse.Namespace) -> str:
    from ..io import read_lines
    from ..significance.compat import seed_setting
    from ..significance.multi import check_comparison, compare_all
    from ..significance.paired import DEFAULT_SAMPLES
    from ..significance.scoring import scorer_for
    from ..significance.sentence import compare_sentences

    if len(args.input) < 2:
        raise ValueError("compare needs at least two systems given to -i")
    if len(set(args.input)) != len(args.input):
        raise ValueError("a system file is given twice")
    check_max_line_length(args.max_line_length)
    check_threads(args.threads)
    refs = [read_lines(path, max_line_length=args.max_line_length) for path in args.refs]
    # before any statistics are computed: a test without power, or too large, is an error now
    n_samples = DEFAULT_SAMPLES[args.test] if args.samples is None else args.samples
    check_comparison(args.test, n_samples, len(refs[0]), len(args.input), option="-n/--samples")
    metric = make_metric(args.metric, args, refs)
    names = _names(args.input)
    stats = []
    with Progress(len(args.input), "scoring systems", "systems") as bar:
        for name, path in zip(names, args.input):
            hyps = read_lines(path, max_line_length=args.max_line_length)
            if len(hyps) != len(refs[0]):
                raise ValueError(f"{path} has {len(hyps)} lines but {args.refs[0]} has "
                                 f"{len(refs[0])}; systems and references must align")
            stats.append((name, metric.corpus_statistics(hyps).to_numpy()))
            bar.update()
    _, seed = seed_setting(args.seed)
    scorer = scorer_for(metric)
    result = compare_all(stats, scorer, test=args.test, n_samples=args.samples, seed=seed,
                         alpha=args.alpha, holm_correction=args.holm,
                         statistic=args.bootstrap_statistic)
    sentences = []
    if args.sentence:
        sentence_scorer = scorer_for(metric, effective_order=True)  # (BLEU: sentence BLEU)
        sentences = [compare_sentences(stats[0][1], other, sentence_scorer, seed=seed,
                                       names=(stats[0][0], name))
                     for name, other in stats[1:]]
    return render(result, args.format, args.width, sentences)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage message
        return int(exc.code or 0)
    set_quiet(args.quiet)
    try:
        report = run(args)
    except (UsageError, ValueError, ImportError, OSError) as exc:
        print(f"truebleu compare: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
