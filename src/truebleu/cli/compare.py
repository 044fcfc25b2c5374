"""``truebleu compare REF... -i SYS1 SYS2 ...``: all pairs, clusters, reports.

``-m NAME [NAME ...]`` picks registered metrics (:data:`truebleu.metrics.METRICS`), as the
scoring command's ``-m`` does; the metric flags, ``--backend`` and ``--threads`` are the
scoring command's (:mod:`.options`). ``--scores NAME=FILE`` adds scores computed
elsewhere (:mod:`truebleu.io.scores`), ``--gold NAME`` the metrics' agreement with it
(:func:`truebleu.significance.compare_metrics`). One metric prints the report compare
has always printed; several print one ranking per metric and the metric agreement
(:mod:`truebleu.significance.metric_formats`). compare's own defaults stay: ``-w 2``
decimals, and BLEU's ``--force`` on (no warning about tokenized-looking output).

``main(argv)`` takes the arguments after the word ``compare`` and returns the
exit status (0 fine, 1 bad input, 2 bad usage).
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from ..core.progress import set_quiet
from ..significance.formats import FORMATS
from .external_scores import (
    ExternalScoreFiles,
    add_external_score_arguments,
    gold_metric,
    read_external_scores,
)
from .inputs import system_names
from .options import (
    UsageError,
    add_backend_argument,
    add_max_line_length_argument,
    add_metric_flags,
    add_metrics_option,
    add_threads_argument,
    check_max_line_length,
    check_metric_flags,
    check_threads,
    make_metrics,
)
from .output import write_output


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
    # -m NAME [NAME ...] and every metric's flags, as the scoring command has them
    add_metrics_option(parser)
    add_metric_flags(parser)
    # compare never warned about tokenized-looking output: BLEU's --force is on
    parser.set_defaults(force=True)
    external = parser.add_argument_group(
        "Scores computed elsewhere (COMET, MetricX, human DA/MQM) and metric agreement")
    add_external_score_arguments(external, "compare")
    external.add_argument("--segment-grouping", choices=("item", "sys", "none"), default="item",
                          help="segment-level agreement compares the outputs of each segment "
                               "(item, default, as WMT23), each system's segments (sys), or "
                               "all outputs (none)")
    external.add_argument("--agreement-samples", type=int, default=1000, metavar="N",
                          help="permutations of each agreement test (default 1000; 0: none)")
    running = parser.add_argument_group("Statistics backend")
    add_backend_argument(running)
    add_threads_argument(running)
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bars (they are drawn only on a terminal anyway)")
    return parser


def run(args: argparse.Namespace) -> str:
    from ..io import read_lines
    from ..significance.compat import seed_setting
    from ..significance.formats import render
    from ..significance.metric_formats import render_metrics
    from ..significance.multi import check_comparison
    from ..significance.multimetric import compare_metrics
    from ..significance.paired import DEFAULT_SAMPLES

    if len(args.input) < 2:
        raise ValueError("compare needs at least two systems given to -i")
    if len(set(args.input)) != len(args.input):
        raise ValueError("a system file is given twice")
    check_max_line_length(args.max_line_length)
    check_threads(args.threads)
    check_metric_flags(args, args.metrics)
    if args.agreement_samples < 0:
        raise UsageError("--agreement-samples must be >= 0")
    external = ExternalScoreFiles(args)
    refs = [read_lines(path, max_line_length=args.max_line_length) for path in args.refs]
    # before any statistics are computed: a test without power, or too large, is an error now
    n_samples = DEFAULT_SAMPLES[args.test] if args.samples is None else args.samples
    check_comparison(args.test, n_samples, len(refs[0]), len(args.input), option="-n/--samples")
    metrics = make_metrics(args, refs)
    gold = gold_metric(args.gold, metrics, external.names)
    names = system_names(args.input)
    systems = {}
    for name, path in zip(names, args.input):
        hyps = read_lines(path, max_line_length=args.max_line_length)
        if len(hyps) != len(refs[0]):
            raise ValueError(f"{path} has {len(hyps)} lines but {args.refs[0]} has "
                             f"{len(refs[0])}; systems and references must align")
        systems[name] = hyps
    scores = read_external_scores(external, names, len(refs[0]), args.max_line_length)
    _, seed = seed_setting(args.seed)
    result = compare_metrics(systems, list(metrics.values()), scores=scores,
                             higher_is_better=external.higher_is_better, gold=gold, test=args.test,
                             n_samples=args.samples, seed=seed, alpha=args.alpha,
                             holm_correction=args.holm, statistic=args.bootstrap_statistic,
                             sentences=args.sentence, grouping=args.segment_grouping,
                             n_permutations=args.agreement_samples)
    if len(result.metrics) == 1:  # one metric: the report compare has always printed
        return render(result.rankings[0], args.format, args.width,
                      result.sentences[0] if result.sentences else ())
    return render_metrics(result, args.format, args.width)


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
    write_output(report)  # UTF-8 whatever the locale, as every command writes
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
