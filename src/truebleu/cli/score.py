"""The scoring command: ``truebleu REF... -i HYP... [-m bleu chrf ter] [sacreBLEU flags]``.

It prints what ``sacrebleu`` prints for the same flags (the signature's version
aside): one score per metric, a table of several systems, paired tests
(``-pbs``, ``-par``), confidence intervals (``-ci``), sentence scores (``-sl``),
test sets (``-t``), WMT XML files (``--wmt-xml``). The command is thin:
arguments -> metrics (each registered metric builds itself from its flags) ->
API -> report.

One system of plain files scored with BLEU alone is read chunk by chunk, in
bounded memory (:func:`run_streaming`); everything else reads the files whole.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

from ..core.log import logger
from ..core.references import ReferenceStreams
from ..core.typing_stubs import cast
from ..io import InputError, check_same_length, is_stdin
from ..io.segments import is_plain_text
from . import testsets as testset_commands
from .command_parser import CommandParser
from .options import (
    OUTPUT_FORMATS,
    UsageError,
    add_encoding_argument,
    add_language_pair_argument,
    add_max_line_length_argument,
    add_metric_flags,
    add_metrics_option,
    add_reporting_arguments,
    add_version_argument,
    add_wmt_xml_arguments,
    check_max_line_length,
    check_metric_flags,
    check_threads,
    make_metric,
    make_metrics,
)
from .output import configure_output, write_lines, write_output
from .testsets import add_testset_arguments

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs about 16 M instructions
if TYPE_CHECKING:
    from typing import Iterator, Optional, Sequence

    from ..metrics.base import Metric

DESCRIPTION = (
    "truebleu: exact, fast BLEU, chrF and TER; accepts sacreBLEU's command lines.\n"
    "    truebleu REF [REF ...] -i HYP [HYP ...]      (or HYP on stdin)\n"
    "    truebleu --sample                           (score the bundled sample)\n"
    "    truebleu explain --hyp TEXT --ref TEXT ...  (one sentence's numbers; -m bleu chrf ter)\n"
    "    truebleu compare REF -i SYS1 SYS2 ...       (all-pairs significance)\n"
    "    truebleu report REF -i SYS1 SYS2 ... -o report.html   (the interactive viewer)\n"
    "    truebleu serve REF -i SYS1 SYS2 ...         (the viewer from a local server)\n"
    "A first argument explain/compare/report/serve is always the sub-command;\n"
    "write ./explain to score a file named explain. '-' is standard input.")


# -- the parser ---------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """sacreBLEU's flags, in sacreBLEU's order, and truebleu's additions."""
    parser = CommandParser(prog="truebleu", description=DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", "-i", type=str, nargs="*", default=None,
                        help="Read input from file(s) instead of STDIN.")
    parser.add_argument("refs", nargs="*", default=[],
                        help="Reference file(s); give them before -i/--input.")
    parser.add_argument("--num-refs", "-nr", type=int, default=1,
                        help="Split the reference stream on tabs into this many references.")
    add_encoding_argument(parser)
    add_metrics_option(parser)
    parser.add_argument("--sentence-level", "-sl", action="store_true",
                        help="Compute the metric for each sentence.")
    add_language_pair_argument(parser)
    parser.add_argument("--test-set", "-t", default=None,
                        help="A test set (see --list), or several joined by commas; "
                             "references are read from the test-set cache.")
    add_testset_arguments(parser)
    _add_input_format_arguments(parser)
    parser.add_argument("--sample", action="store_true",
                        help="Score the small sample shipped with truebleu.")
    add_metric_flags(parser, after={"bleu": _add_dialect_argument})
    _add_significance_arguments(parser)
    add_reporting_arguments(parser)
    add_version_argument(parser)
    return parser


def _add_input_format_arguments(parser: argparse.ArgumentParser) -> None:
    inputs = parser.add_argument_group("Input formats (plain, .gz, .bz2, .xz; .sgm; .jsonl)")
    add_wmt_xml_arguments(inputs, "Score every system of a WMT XML file against each of its "
                                  "references (one score per system per reference).")
    add_max_line_length_argument(inputs)
    inputs.add_argument("--hyp-field", default="hyp",
                        help="Field of the hypothesis in .jsonl inputs (default: %(default)s).")
    inputs.add_argument("--ref-field", default="ref",
                        help="Field of the reference(s) in .jsonl references: a string or a "
                             "list of strings (default: %(default)s).")


def _add_dialect_argument(parser: argparse.ArgumentParser) -> None:
    """``--dialect``, after BLEU's flags (its place in the usage line). Any other value
    than sacrebleu is run by :mod:`truebleu.cli.dialect` before this parser is built."""
    parser.add_argument("--dialect", default="sacrebleu",
                        help="Score as another tool does: nltk, mteval-v13a, mteval-v14, multi-bleu, "
                             "multi-bleu-detok, tf-nmt, hf-evaluate, torchmetrics "
                             "(see `truebleu --dialect NAME --help`).")


def _add_significance_arguments(parser: argparse.ArgumentParser) -> None:
    ci = parser.add_argument_group("Confidence interval (CI) estimation for single-system evaluation")
    ci.add_argument("--confidence", "-ci", action="store_true",
                    help="Report a confidence interval using bootstrap resampling.")
    ci.add_argument("--confidence-n", "-cin", type=int, default=1000,
                    help="Number of bootstrap resamples (default: %(default)s).")
    paired = parser.add_argument_group("Paired significance testing for multi-system evaluation")
    choice = paired.add_mutually_exclusive_group()
    choice.add_argument("--paired-ar", "-par", action="store_true",
                        help="Paired approximate randomization test.")
    choice.add_argument("--paired-bs", "-pbs", action="store_true",
                        help="Paired bootstrap resampling test.")
    paired.add_argument("--paired-ar-n", "-parn", type=int, default=10000,
                        help="Trials of approximate randomization (default: %(default)s).")
    paired.add_argument("--paired-bs-n", "-pbsn", type=int, default=1000,
                        help="Resamples of paired bootstrap (default: %(default)s).")
    paired.add_argument("--paired-jobs", "-j", type=int, default=1,
                        help="Accepted for compatibility; truebleu's tests are vectorised.")
    paired.add_argument("--seed", default=None,
                        help="Random seed (default: $SACREBLEU_SEED, else 12345; 'none' for OS entropy).")


# -- checks -------------------------------------------------------------------------

def validate(args: argparse.Namespace) -> None:
    """UsageErrors for a command line that cannot run, before any file is read."""
    if args.sentence_level and len(set(args.metrics)) > 1:
        raise UsageError("Only one metric can be used in sentence-level mode.")
    if args.num_refs < 1:
        raise UsageError("--num-refs must be >= 1")
    if args.num_refs != 1 and len(args.refs) > 1:
        raise UsageError("--num-refs reads tab-separated references from one file; "
                         "give one reference file")
    if not args.refs and args.test_set is None:
        raise UsageError("give reference file(s) before -i/--input, or a test set (-t), "
                         "or use --sample")
    if args.width < 0:
        raise UsageError("--width must be >= 0")
    if args.paired_bs and args.paired_bs_n < 1 or args.paired_ar and args.paired_ar_n < 1:
        raise UsageError("the number of samples of a paired test must be >= 1")
    if args.confidence and args.confidence_n < 1:
        raise UsageError("--confidence-n must be >= 1")
    check_threads(args.threads)
    check_max_line_length(args.max_line_length)
    check_metric_flags(args, args.metrics)
    stdin_uses = sum(map(is_stdin, [*args.refs, *(args.input or [])])) + (args.input is None)
    if stdin_uses > 1:
        raise UsageError("standard input can be read only once: give '-' once, and give -i "
                         "files when a reference is '-'")


def _check_systems(args: argparse.Namespace, n_systems: int, paired: bool) -> None:
    if args.sentence_level:
        if n_systems > 1:
            raise UsageError("Only one system can be evaluated in sentence-level mode.")
        if args.confidence or paired:
            raise UsageError("Statistical tests are unavailable in sentence-level mode.")
    if paired and n_systems == 1:
        raise UsageError("Paired tests require multiple input systems given to --input (-i).")
    if n_systems > 1 and args.confidence:
        raise UsageError("Use paired tests (--paired) for multiple systems.")


def check_resampling(args: argparse.Namespace, n_segments: int, n_systems: int) -> None:
    """``-pbs``/``-par``/``-ci`` on too few segments, or at a cost above the limits: an error
    naming the flag, before any statistic is computed (each metric of ``-m`` runs its own)."""
    runs = len({name.upper() for name in args.metrics})
    if args.paired_bs or args.paired_ar:
        from ..significance.compat import check_paired

        test, flag, n = (("bs", "-pbsn/--paired-bs-n", args.paired_bs_n) if args.paired_bs
                         else ("ar", "-parn/--paired-ar-n", args.paired_ar_n))
        check_paired(test, n, n_segments, n_systems, option=flag, repeats=runs)
    elif args.confidence:
        from ..significance.compat import check_confidence

        check_confidence(args.confidence_n, n_segments, option="-cin/--confidence-n",
                         repeats=runs)


# -- scoring ------------------------------------------------------------------------

def _is_streamable(args: argparse.Namespace, paired: bool) -> bool:
    """One plain system file, plain reference files, BLEU alone, no resampling."""
    return (args.input is not None and len(args.input) == 1 and args.num_refs == 1
            and args.test_set is None and is_plain_text(args.input[0])
            and all(is_plain_text(path) for path in args.refs)
            and set(args.metrics) == {"bleu"}
            and not (paired or args.confidence))


def run(args: argparse.Namespace) -> str | Iterator[str]:
    """Everything the command prints on stdout for parsed ``args``: a text, or its lines."""
    if args.sample:
        from ..io.sample import sample_files

        hyp, refs = sample_files()
        args.refs, args.input = refs, [hyp]
    finished = testset_commands.finishing_output(args)  # --download, --list, --citation, --echo
    if finished is not None:
        return finished
    if args.wmt_xml is not None:
        return run_wmt_xml(args)
    validate(args)
    paired = args.paired_bs or args.paired_ar
    if _is_streamable(args, paired):
        return run_streaming(args)
    from .inputs import read_references, read_systems  # (the streaming path reads by itself)

    references: ReferenceStreams
    if args.test_set is not None:
        references, ref_names = testset_commands.testset_references(args)
    else:
        references = read_references(args.refs, args.num_refs, args.encoding, args.ref_field,
                                     args.max_line_length)
        ref_names = args.refs if args.num_refs == 1 else [
            f"{args.refs[0]} (reference {k + 1})" for k in range(args.num_refs)]
    systems, names = read_systems(args.input, args.encoding, paired, args.hyp_field,
                                  args.max_line_length)
    hyp_names = names if args.input is not None else ["<stdin>"] * len(systems)
    for system, name in zip(systems, hyp_names):
        check_same_length(system, name, references, ref_names)
    full_system, full_references = systems[0], references
    if args.origlang is not None or args.subset is not None:
        from ..io.testsets.subsets import filter_subset

        filtered = filter_subset([*systems, *references], args.test_set, args.langpair,
                                 args.origlang, args.subset)
        # the systems' streams come first: strings (only references may hold None)
        n_systems = len(systems)
        systems = cast("list[list[str]]", filtered[:n_systems])
        references = filtered[n_systems:]
        testset_commands.check_not_empty(systems, args)
    if args.detail and args.format == "json":
        args.format = "text"  # as sacreBLEU: the detail table is not JSON
    _check_systems(args, len(systems), paired)
    check_resampling(args, len(systems[0]), len(systems))  # before the metrics prepare anything
    if args.sentence_level:
        args.effective_order = True

    metrics = make_metrics(args, references)
    if args.sentence_level:
        return sentence_scores(args, next(iter(metrics.values())), systems[0])
    if len(systems) == 1:
        return single_system(args, metrics, systems[0], full_system, full_references)
    if paired:
        return paired_tests(args, metrics, systems, names)
    return systems_table(args, metrics, systems, names)


def sentence_scores(args: argparse.Namespace, metric: Metric, system: list[str]
                    ) -> Iterator[str]:
    """``-sl``: one metric; a segment's score is the score of its statistics row."""
    stats = metric.corpus_statistics(system)
    signature = metric.get_signature().format(args.short)
    return (metric.score_from_statistics(row).format(args.width, args.score_only, signature)
            for row in stats.rows())  # printed as they are made


def single_system(args: argparse.Namespace, metrics: dict[str, Metric], system: list[str],
                  full_system: list[str], full_references: ReferenceStreams) -> str:
    """One score per metric, sorted by name as sacreBLEU prints them (``-ci``: with
    a bootstrap confidence interval; ``-d``: and the per-subset table)."""
    from ..reports.single import single_results_text

    n_bootstrap = args.confidence_n if args.confidence else 1
    results = []
    for name in sorted(metrics):
        metric = metrics[name]
        score = metric.corpus_score(system, None, n_bootstrap=n_bootstrap, seed=args.seed)
        signature = metric.get_signature().format(args.short if args.format != "json" else False)
        results.append(score.format(args.width, args.score_only, signature, args.format == "json"))
    text = single_results_text(results, args.format)
    if args.detail:
        text += "\n" + testset_commands.detail_text(list(metrics.values()), full_system,
                                                    full_references, args)
    return text


def paired_tests(args: argparse.Namespace, metrics: dict[str, Metric],
                 systems: list[list[str]], names: list[str]) -> str:
    """``-pbs``/``-par``: each system against the first (the baseline)."""
    from ..reports.paired import paired_test_report

    test_type = "bs" if args.paired_bs else "ar"
    n_samples = args.paired_bs_n if args.paired_bs else args.paired_ar_n
    report = paired_test_report(list(zip(names, systems)), list(metrics.values()), test_type,
                                n_samples, args.format, args.width, args.short, seed=args.seed)
    return report.removesuffix("\n")


def systems_table(args: argparse.Namespace, metrics: dict[str, Metric],
                  systems: list[list[str]], names: list[str]) -> str:
    """Several systems: a table of their scores, one column per metric."""
    from ..metrics.base import Metric
    from ..reports.table import results_table

    logger.info("Found %d systems.", len(systems))
    scores: dict = defaultdict(list)
    scores["System"] = names
    signatures = {}
    # a metric that computes every system in one call (BLEU's native kernel) does so first;
    # its integer rows sum to corpus_score's totals, whatever the order of the additions
    at_once = {name: [metric.score_from_statistics(table.sum())
                      for table in metric.systems_statistics(systems)]
               for name, metric in metrics.items()
               if type(metric).systems_statistics is not Metric.systems_statistics
               and metric.integer_rows}
    for k, system in enumerate(systems):
        for name in sorted(metrics):
            score = (at_once[name][k] if name in at_once
                     else metrics[name].corpus_score(system, None))
            signatures[score.name] = metrics[name].get_signature().format(args.short)
            scores[score.name].append(score.format(args.width, True))
    return results_table(dict(scores), signatures, args.format, args.width)


def run_wmt_xml(args: argparse.Namespace) -> str:
    """``--wmt-xml FILE``: a table of every system against each reference of the file (BLEU)."""
    from ..io.wmt_xml import read_wmt_xml
    from ..reports.table import results_table
    from ..reports.wmt_xml import wmt_xml_scores

    if args.refs or args.input is not None or args.test_set is not None:
        raise UsageError("--wmt-xml reads references and systems from the file; "
                         "give no reference files, -i or -t")
    testset = read_wmt_xml(args.wmt_xml)
    if args.langpair is None:
        args.langpair = f"{testset.src_lang}-{testset.trg_lang}"  # picks zh/ja/ko tokenizers
    scores, signatures = wmt_xml_scores(testset, lambda refs: make_metric("bleu", args, refs),
                                        args.width, args.wmt_ref, args.wmt_system)
    signatures = {k: v.format(args.short) for k, v in signatures.items()}
    return results_table(scores, signatures, args.format, args.width)


def run_streaming(args: argparse.Namespace) -> str | Iterator[str]:
    """One system from a file: scored chunk by chunk, in bounded memory (``-sl``: line by line)."""
    from ..metrics.streaming import score_files, sentence_scores_from_files
    from ..reports.single import single_results_text

    if args.sentence_level:
        args.effective_order = True
        metric = make_metric("bleu", args, None)
        return _sentence_lines(sentence_scores_from_files(
            args.input[0], args.refs, metric, encoding=args.encoding,
            max_line_length=args.max_line_length), metric, args)
    metric = make_metric("bleu", args, None)
    score = score_files(args.input[0], args.refs, metric, encoding=args.encoding,
                        max_line_length=args.max_line_length).score
    signature = metric.get_signature().format(args.short if args.format != "json" else False)
    return single_results_text(
        [score.format(args.width, args.score_only, signature, args.format == "json")], args.format)


def _sentence_lines(scores, metric: Metric, args: argparse.Namespace) -> Iterator[str]:
    signature = None
    for score in scores:
        if signature is None:  # after the first chunk: the signature counts its references
            signature = metric.get_signature().format(args.short)
        yield score.format(args.width, args.score_only, signature)


# -- the command --------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    """Parse, score, print; returns the exit status (argparse exits with 2 itself).

    ``$TRUEBLEU_FORMAT``, else ``$SACREBLEU_FORMAT``, overrides ``-f``, as in sacreBLEU.
    """
    args = build_parser().parse_args(argv)
    for variable in ("TRUEBLEU_FORMAT", "SACREBLEU_FORMAT"):
        value = os.environ.get(variable, "").lower()
        if value in OUTPUT_FORMATS:
            args.format = value
            break
    configure_output(args)
    try:
        text = run(args)
        if isinstance(text, str):
            if text:  # --download prints nothing
                write_output(text + "\n")
        else:
            write_lines(text)
    except reported_errors() as exc:
        print(f"truebleu: error: {exc}", file=sys.stderr)
        return 1
    return 0


def reported_errors() -> tuple[type[Exception], ...]:
    """The errors :func:`main` reports as one line (exit status 1).

    A function for ``except reported_errors() as exc:``, which calls it only when an
    exception is raised: a command that succeeds never imports the test-set package of
    ``DownloadError`` (two modules, about 0.8 M instructions of ``-pbs``'s start-up).
    """
    from ..io.testsets.errors import DownloadError

    return (InputError, UsageError, ValueError, ImportError, FileNotFoundError, DownloadError)
