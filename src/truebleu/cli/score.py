"""The ``truebleu`` command: sacreBLEU's command lines (BLEU, chrF, TER), and more.

``truebleu REF... -i HYP... [-m bleu chrf ter] [sacreBLEU flags]`` prints what
``sacrebleu`` prints for the same flags (the signature's version aside). The CLI is thin:
arguments -> configuration -> API -> report. Extra sub-commands:
``truebleu explain ...`` (the BLEU tables of one sentence) and
``truebleu compare ...`` (all-pairs significance); ``--dialect NAME`` scores
in another tool's dialect.

A first argument naming a sub-command (explain, compare, report, serve) always
runs it, even when a file of that name exists: write ``./explain`` to score a
reference file called ``explain``. Output to a pipe that closes early
(``| head``) ends quietly with status 141, as for a program stopped by SIGPIPE.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections import defaultdict
from typing import Iterable, Iterator, Sequence

from ..core.log import configure as configure_logging, logger
from .._version import __version__
from ..io import (DEFAULT_MAX_LINE_LENGTH, InputError, check_same_length, is_stdin,
                 read_stdin_lines)
from ..io.testsets.cache import DownloadError
from ..io import iter_lines
from ..io.segments import is_plain_text, read_reference_streams, read_segments
from .testsets import add_testset_arguments
from ..metrics.bleu.score import SMOOTH_DEFAULTS
from ..tokenizers import TOKENIZERS, target_language

OUTPUT_FORMATS = ("json", "text", "latex")
METRICS = ("bleu", "chrf", "ter")
SUBCOMMANDS = ("explain", "compare", "report", "serve")
MAX_THREADS = 1024  # far more than any machine's cores; the native core uses at most 256
#: Exit status after the reader of our output went away (``| head``): 128 + SIGPIPE, what a
#: shell reports for ``cat`` or ``yes`` there, so ``set -o pipefail`` scripts see the same.
EXIT_BROKEN_PIPE = 141


class UsageError(Exception):
    """A command line that cannot be run; exit status 1, as sacreBLEU."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="truebleu",
        description="truebleu: exact, fast BLEU, chrF and TER; accepts sacreBLEU's command lines.\n"
                    "    truebleu REF [REF ...] -i HYP [HYP ...]      (or HYP on stdin)\n"
                    "    truebleu --sample                           (score the bundled sample)\n"
                    "    truebleu explain --hyp TEXT --ref TEXT ...  (BLEU's tables for one sentence)\n"
                    "    truebleu compare REF -i SYS1 SYS2 ...       (all-pairs significance)\n"
                    "    truebleu report REF -i SYS1 SYS2 ... -o report.html   (the interactive viewer)\n"
                    "    truebleu serve REF -i SYS1 SYS2 ...         (the viewer from a local server)\n"
                    "A first argument explain/compare/report/serve is always the sub-command;\n"
                    "write ./explain to score a file named explain. '-' is standard input.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", "-i", type=str, nargs="*", default=None,
                        help="Read input from file(s) instead of STDIN.")
    parser.add_argument("refs", nargs="*", default=[],
                        help="Reference file(s); give them before -i/--input.")
    parser.add_argument("--num-refs", "-nr", type=int, default=1,
                        help="Split the reference stream on tabs into this many references.")
    parser.add_argument("--encoding", "-e", type=str, default="utf-8",
                        help="Encoding of the input files (default: %(default)s).")
    parser.add_argument("--metrics", "-m", nargs="+", default=["bleu"], choices=METRICS,
                        type=str.lower, help="Metrics to compute (default: bleu).")
    parser.add_argument("--sentence-level", "-sl", action="store_true",
                        help="Compute the metric for each sentence.")
    parser.add_argument("--language-pair", "-l", dest="langpair", default=None,
                        help="Source-target language pair; the target picks the tokenizer.")
    parser.add_argument("--test-set", "-t", default=None,
                        help="A test set (see --list), or several joined by commas; "
                             "references are read from the test-set cache.")
    add_testset_arguments(parser)
    inputs = parser.add_argument_group("Input formats (plain, .gz, .bz2, .xz; .sgm; .jsonl)")
    add_wmt_xml_arguments(inputs, "Score every system of a WMT XML file against each of its "
                                  "references (one score per system per reference).")
    add_max_line_length_argument(inputs)
    inputs.add_argument("--hyp-field", default="hyp",
                        help="Field of the hypothesis in .jsonl inputs (default: %(default)s).")
    inputs.add_argument("--ref-field", default="ref",
                        help="Field of the reference(s) in .jsonl references: a string or a "
                             "list of strings (default: %(default)s).")
    parser.add_argument("--sample", action="store_true",
                        help="Score the small sample shipped with truebleu.")

    add_bleu_arguments(parser)
    parser.add_argument("--dialect", default="sacrebleu",
                        help="Score as another tool does: nltk, mteval-v13a, mteval-v14, multi-bleu, "
                             "multi-bleu-detok, tf-nmt, hf-evaluate, torchmetrics "
                             "(see `truebleu --dialect NAME --help`).")

    chrf = parser.add_argument_group("chrF related arguments")
    chrf.add_argument("--chrf-char-order", "-cc", type=int, default=6,
                      help="Character n-gram order (default: %(default)s).")
    chrf.add_argument("--chrf-word-order", "-cw", type=int, default=0,
                      help="Word n-gram order (default: %(default)s); 2 gives chrF++.")
    chrf.add_argument("--chrf-beta", "-cb", type=int, default=2,
                      help="Weight of recall against precision (default: %(default)s).")
    chrf.add_argument("--chrf-whitespace", action="store_true",
                      help="Include whitespace in character n-grams.")
    chrf.add_argument("--chrf-lowercase", action="store_true", help="Case-insensitive chrF.")
    chrf.add_argument("--chrf-eps-smoothing", action="store_true",
                      help="Epsilon smoothing as chrF++.py, NLTK and Moses (instead of the "
                           "effective order).")

    ter = parser.add_argument_group("TER related arguments (the defaults replicate TERCOM)")
    ter.add_argument("--ter-case-sensitive", action="store_true", help="Case-sensitive TER.")
    ter.add_argument("--ter-asian-support", action="store_true",
                     help="Special treatment of Asian characters.")
    ter.add_argument("--ter-no-punct", action="store_true", help="Remove punctuation.")
    ter.add_argument("--ter-normalized", action="store_true",
                     help="Basic normalization and tokenization.")

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

    report = parser.add_argument_group("Reporting related arguments")
    report.add_argument("--quiet", "-q", action="store_true", help="Suppress verbose messages.")
    report.add_argument("--short", "-sh", action="store_true", help="Shorter signature.")
    report.add_argument("--score-only", "-b", action="store_true", help="Print only the score.")
    report.add_argument("--width", "-w", type=int, default=1,
                        help="Floating point width (default: %(default)s).")
    report.add_argument("--no-color", "-nc", action="store_true", help="No terminal colours.")
    report.add_argument("--format", "-f", default="json", choices=OUTPUT_FORMATS,
                        help="Output format (default: %(default)s; $SACREBLEU_FORMAT overrides).")
    report.add_argument("--backend", choices=("native", "python"), default=None,
                        help="Statistics backend (default: native when built).")
    report.add_argument("--threads", type=int, default=None,
                        help="Worker threads of the native backend (default: all cores).")
    parser.add_argument("--version", "-V", action="version", version=version_text())
    return parser


def add_wmt_xml_arguments(group, help_text: str) -> None:
    """``--wmt-xml FILE`` with its choice of references and systems (scoring and the viewer)."""
    group.add_argument("--wmt-xml", default=None, metavar="FILE", help=help_text)
    group.add_argument("--wmt-ref", nargs="+", default=None, metavar="TRANSLATOR",
                       help="With --wmt-xml: only these references (default: all).")
    group.add_argument("--wmt-system", nargs="+", default=None, metavar="NAME",
                       help="With --wmt-xml: only these systems (default: all).")


def add_max_line_length_argument(group) -> None:
    """``--max-line-length N``: the longest line any reader accepts (memory stays bounded)."""
    group.add_argument("--max-line-length", type=int, default=DEFAULT_MAX_LINE_LENGTH,
                       metavar="N", help="Longest line accepted, in characters; a longer line is "
                                         "an error naming file and line (default: %(default)s).")


def check_max_line_length(value: int) -> None:
    """A ValueError, which every sub-command reports as one line."""
    if value < 1:
        raise ValueError(f"--max-line-length must be >= 1, got {value}")


def add_bleu_arguments(parser: argparse.ArgumentParser) -> None:
    """sacreBLEU's BLEU options (shared by scoring, ``report`` and ``serve``)."""
    bleu = parser.add_argument_group("BLEU related arguments")
    bleu.add_argument("--smooth-method", "-s", choices=list(SMOOTH_DEFAULTS), default="exp",
                      help="Smoothing method (default: %(default)s).")
    bleu.add_argument("--smooth-value", "-sv", type=float, default=None,
                      help="Smoothing value for floor (0.1) and add-k (1).")
    bleu.add_argument("--tokenize", "-tok", choices=list(TOKENIZERS), default=None,
                      help="Tokenizer (default: zh, ja-mecab or ko-mecab by target language, else 13a).")
    bleu.add_argument("--lowercase", "-lc", action="store_true", help="Case-insensitive BLEU.")
    bleu.add_argument("--force", action="store_true",
                      help="Insist that your tokenized input is actually detokenized.")
    bleu.add_argument("--max-ngram-order", type=int, default=4,
                      help="Largest n-gram order (default: %(default)s).")
    bleu.add_argument("--effective-order", action="store_true",
                      help="Leave out n-gram orders with no n-grams.")
    bleu.add_argument("--spm-model", default=None,
                      help="Path of the SentencePiece model for flores101/flores200/spm.")


def version_text() -> str:
    from ..core.kernels import backend_status

    try:
        backend = backend_status()
    except (ImportError, ValueError) as exc:
        backend = f"unavailable ({exc})"
    return f"truebleu {__version__} (backend: {backend})"


# -- reading ---------------------------------------------------------------

def read_references(paths: Sequence[str], num_refs: int, encoding: str,
                    ref_field: str = "ref",
                    max_line_length: int = DEFAULT_MAX_LINE_LENGTH) -> list[list[str]]:
    """Reference streams, one per file (JSON Lines: one per list entry), or ``num_refs``
    tab-separated ones in one file."""
    if num_refs == 1:
        return [stream for path in paths
                for stream in read_reference_streams(path, encoding, ref_field, max_line_length)]
    streams: list[list[str]] = [[] for _ in range(num_refs)]
    path = paths[0]
    for line_no, line in enumerate(iter_lines(path, encoding, max_line_length), 1):
        fields = line.rstrip().split("\t", num_refs - 1)
        if len(fields) != num_refs:
            raise InputError(f"{path}, line {line_no}: expected {num_refs} tab-separated "
                             f"references, found {len(fields)}")
        for stream, ref in zip(streams, fields):
            stream.append(ref)
    return streams


def read_systems(inputs: Sequence[str] | None, encoding: str, paired: bool,
                 hyp_field: str = "hyp", max_line_length: int = DEFAULT_MAX_LINE_LENGTH
                 ) -> tuple[list[list[str]], list[str]]:
    """System outputs and their names: from ``-i`` files or tab-separated stdin."""
    if inputs is None:
        lines = read_stdin_lines(encoding, max_line_length)
        first = lines[0].rstrip().split("\t") if lines else [""]
        systems = [[field] for field in first]
        for line_no, line in enumerate(lines[1:], 2):
            fields = line.rstrip().split("\t")
            if len(fields) != len(systems):
                raise InputError(f"<stdin>, line {line_no}: {len(fields)} tab-separated systems, "
                                 f"but line 1 has {len(systems)}")
            for system, field in zip(systems, fields):
                system.append(field.rstrip())
        names = [f"System {i + 1}" for i in range(len(systems))]
        if paired:
            names = ["Baseline"] + [f"System {i + 1}" for i in range(len(systems) - 1)]
        return systems, names

    systems, names = [], []
    for path in inputs:
        if path in names:
            if paired and path == names[0]:
                logger.info("Ignoring %r as it was also given as the baseline.", path)
                continue
            raise UsageError(f"{path!r} already used to name a system; give each system a "
                             "different file name")
        systems.append(read_segments(path, encoding, hyp_field, max_line_length))
        names.append(path)
    if paired and names:
        names[0] = f"Baseline: {names[0]}"
    return systems, names


# -- running ---------------------------------------------------------------

def _validate(args) -> None:
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
    check_metric_flags(args)
    stdin_uses = sum(map(is_stdin, [*args.refs, *(args.input or [])])) + (args.input is None)
    if stdin_uses > 1:
        raise UsageError("standard input can be read only once: give '-' once, and give -i "
                         "files when a reference is '-'")


def check_metric_flags(args) -> None:
    """The metric settings of the command line, with errors naming the flags.

    The metric classes check the same things but name their Python parameters
    (``smooth_value``), which a command-line user never typed.
    """
    try:
        if "bleu" in args.metrics:
            from ..metrics.bleu.config import check_order, check_smoothing

            check_smoothing(args.smooth_method, args.smooth_value,
                            method_name="--smooth-method", value_name="--smooth-value")
            check_order(args.max_ngram_order, "--max-ngram-order")
        if "chrf" in args.metrics:
            from ..metrics.chrf.metric import check_orders

            check_orders(args.chrf_char_order, args.chrf_word_order,
                         char_name="--chrf-char-order", word_name="--chrf-word-order")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def check_threads(threads: int | None) -> None:
    if threads is not None and not 1 <= threads <= MAX_THREADS:
        raise UsageError(f"--threads must be between 1 and {MAX_THREADS}, got {threads}")


def make_metrics(args, references) -> dict:
    """The metric objects of ``-m``, by sacreBLEU's names (BLEU, CHRF, TER), in ``-m`` order."""
    metrics = {}
    for name in args.metrics:
        if name.upper() not in metrics:
            metrics[name.upper()] = METRIC_FACTORIES[name](args, references)
    return metrics


def make_chrf(args, references):
    from ..metrics.chrf.metric import CHRF

    return CHRF(char_order=args.chrf_char_order, word_order=args.chrf_word_order,
                beta=args.chrf_beta, lowercase=args.chrf_lowercase,
                whitespace=args.chrf_whitespace, eps_smoothing=args.chrf_eps_smoothing,
                references=references, backend=args.backend, threads=args.threads)


def make_ter(args, references):
    try:
        from ..metrics.ter.metric import TER
    except ImportError as exc:
        raise UsageError(f"TER is not available in this truebleu ({exc})") from exc
    return TER(normalized=args.ter_normalized, no_punct=args.ter_no_punct,
               asian_support=args.ter_asian_support, case_sensitive=args.ter_case_sensitive,
               references=references)


def make_metric(args, references):
    """The BLEU metric of the command line's BLEU flags."""
    from ..metrics.bleu.metric import BLEU

    return BLEU(lowercase=args.lowercase, force=args.force, tokenize=args.tokenize,
                smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                max_ngram_order=args.max_ngram_order, effective_order=args.effective_order,
                trg_lang=target_language(args.langpair), references=references,
                spm_model=args.spm_model, backend=args.backend, threads=args.threads)


METRIC_FACTORIES = {"bleu": make_metric, "chrf": make_chrf, "ter": make_ter}


def run(args) -> str | Iterator[str]:
    """Everything the command prints on stdout for parsed ``args``: a text, or its lines."""
    if args.sample:
        from ..io.sample import sample_files

        hyp, refs = sample_files()
        args.refs, args.input = refs, [hyp]
    from . import testsets as testset_commands

    finished = testset_commands.finishing_output(args)  # --download, --list, --citation, --echo
    if finished is not None:
        return finished
    if args.wmt_xml is not None:
        return run_wmt_xml(args)
    _validate(args)
    paired = args.paired_bs or args.paired_ar
    if (args.input is not None and len(args.input) == 1 and args.num_refs == 1
            and args.test_set is None and is_plain_text(args.input[0])
            and all(is_plain_text(path) for path in args.refs)
            and set(args.metrics) == {"bleu"}
            and not (paired or args.confidence)):
        return run_streaming(args)
    from ..reports.single import single_results_text
    from ..reports.table import results_table  # (not imported by the streaming command)

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
        systems, references = filtered[:len(systems)], filtered[len(systems):]
        testset_commands.check_not_empty(systems, args)
    if args.detail and args.format == "json":
        args.format = "text"  # as sacreBLEU: the detail table is not JSON

    if args.sentence_level:
        if len(systems) > 1:
            raise UsageError("Only one system can be evaluated in sentence-level mode.")
        if args.confidence or paired:
            raise UsageError("Statistical tests are unavailable in sentence-level mode.")
        args.effective_order = True
    if paired and len(systems) == 1:
        raise UsageError("Paired tests require multiple input systems given to --input (-i).")
    if len(systems) > 1 and args.confidence:
        raise UsageError("Use paired tests (--paired) for multiple systems.")

    metrics = make_metrics(args, references)

    if args.sentence_level:
        # one metric: a segment's score is the score of its statistics row
        metric = next(iter(metrics.values()))
        stats = metric.corpus_statistics(systems[0])
        signature = metric.get_signature().format(args.short)
        del systems, references, full_system, full_references  # only the statistics are needed
        return (metric.score_from_statistics(row).format(args.width, args.score_only, signature)
                for row in stats.rows())  # printed as they are made

    if len(systems) == 1:
        n_bootstrap = args.confidence_n if args.confidence else 1
        results = []
        for name in sorted(metrics):  # sacreBLEU prints the metrics sorted by name
            metric = metrics[name]
            score = metric.corpus_score(systems[0], None, n_bootstrap=n_bootstrap,
                                        **_seed_option(metric, args.seed))
            signature = metric.get_signature().format(
                args.short if args.format != "json" else False)
            results.append(score.format(args.width, args.score_only, signature,
                                        args.format == "json"))
        text = single_results_text(results, args.format)
        if args.detail:
            text += "\n" + testset_commands.detail_text(list(metrics.values()), full_system,
                                                        full_references, args)
        return text

    if paired:
        from ..reports.paired import paired_test_report

        test_type = "bs" if args.paired_bs else "ar"
        n_samples = args.paired_bs_n if args.paired_bs else args.paired_ar_n
        report = paired_test_report(list(zip(names, systems)), list(metrics.values()),
                                    test_type, n_samples, args.format, args.width, args.short,
                                    seed=args.seed)
        return report.removesuffix("\n")

    logger.info("Found %d systems.", len(systems))
    scores: dict = defaultdict(list)
    scores["System"] = names
    signatures = {}
    for system in systems:
        for name in sorted(metrics):
            score = metrics[name].corpus_score(system, None)
            signatures[score.name] = metrics[name].get_signature().format(args.short)
            scores[score.name].append(score.format(args.width, True))
    return results_table(dict(scores), signatures, args.format, args.width)


def run_wmt_xml(args) -> str:
    """``--wmt-xml FILE``: a table of every system against each reference of the file."""
    from ..io.wmt_xml import read_wmt_xml
    from ..reports.table import results_table
    from ..reports.wmt_xml import wmt_xml_scores

    if args.refs or args.input is not None or args.test_set is not None:
        raise UsageError("--wmt-xml reads references and systems from the file; "
                         "give no reference files, -i or -t")
    testset = read_wmt_xml(args.wmt_xml)
    if args.langpair is None:
        args.langpair = f"{testset.src_lang}-{testset.trg_lang}"  # picks zh/ja/ko tokenizers
    scores, signatures = wmt_xml_scores(testset, lambda refs: make_metric(args, refs), args.width,
                                        args.wmt_ref, args.wmt_system)
    signatures = {k: v.format(args.short) for k, v in signatures.items()}
    return results_table(scores, signatures, args.format, args.width)


def _seed_option(metric, seed) -> dict:
    """``seed=`` for metrics whose corpus_score takes truebleu's seed keyword."""
    import inspect

    if "seed" in inspect.signature(metric.corpus_score).parameters:
        return {"seed": seed}
    if seed is not None:
        raise UsageError(f"--seed is not supported by {type(metric).__name__}; "
                         "use $SACREBLEU_SEED")
    return {}


def run_streaming(args) -> str | Iterator[str]:
    """One system from a file: scored chunk by chunk, in bounded memory (``-sl``: line by line)."""
    from ..reports.single import single_results_text
    from ..metrics.streaming import score_files, sentence_scores_from_files

    if args.sentence_level:
        args.effective_order = True
        metric = make_metric(args, None)
        return _sentence_lines(sentence_scores_from_files(
            args.input[0], args.refs, metric, encoding=args.encoding,
            max_line_length=args.max_line_length), metric, args)
    metric = make_metric(args, None)
    score = score_files(args.input[0], args.refs, metric, encoding=args.encoding,
                        max_line_length=args.max_line_length).score
    signature = metric.get_signature().format(args.short if args.format != "json" else False)
    return single_results_text(
        [score.format(args.width, args.score_only, signature, args.format == "json")], args.format)


def _sentence_lines(scores, metric, args) -> Iterator[str]:
    signature = None
    for score in scores:
        if signature is None:  # after the first chunk: the signature counts its references
            signature = metric.get_signature().format(args.short)
        yield score.format(args.width, args.score_only, signature)


def _configure_output(args) -> None:
    if args.no_color:
        from ..reports.color import Color

        Color.enabled = False
    if not args.quiet:
        configure_logging(level="INFO", format="truebleu: %(message)s")  # logging.INFO


def main(argv: Sequence[str] | None = None) -> int:
    """The ``truebleu`` command; returns the exit status.

    One place handles a closed output pipe for every sub-command and path
    (scores, ``-sl`` lines, dialects, ``compare``, ``explain``, ``--list``, ``--help``).
    """
    try:
        status = _dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_closed()
    except SystemExit:  # argparse's --help / usage errors: flush here, not at interpreter exit
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            return _stdout_closed()
        raise
    return status


def explain_command() -> int:
    """The ``truebleu-explain`` command: ``truebleu explain``, with the same output handling."""
    return main(["explain", *sys.argv[1:]])


def _stdout_closed() -> int:
    """Point standard output at /dev/null so that the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass
    return EXIT_BROKEN_PIPE


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:  # always the sub-command; ./explain is a file
        if argv[0] in ("report", "serve"):
            from .viewer import main as viewer_main

            return viewer_main(argv)
        if argv[0] == "explain":
            from .explain import main as explain_main

            return explain_main(argv[1:])
        from .compare import main as compare_main

        return compare_main(argv[1:])
    if _names_a_dialect(argv):
        from .dialect import requested_dialect

        if requested_dialect(argv) not in (None, "sacrebleu"):
            # each tool's own flags (-c, --brevity-penalty, ...) are parsed there
            from .dialect import main as dialect_main

            return dialect_main(argv)
    args = build_parser().parse_args(argv)
    for variable in ("TRUEBLEU_FORMAT", "SACREBLEU_FORMAT"):
        value = os.environ.get(variable, "").lower()
        if value in OUTPUT_FORMATS:
            args.format = value
            break
    _configure_output(args)
    try:
        text = run(args)
        if isinstance(text, str):
            if text:  # --download prints nothing
                write_output(text + "\n")
        else:
            write_lines(text)
    except (InputError, UsageError, ValueError, ImportError, FileNotFoundError,
            DownloadError) as exc:
        print(f"truebleu: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _names_a_dialect(argv: Sequence[str]) -> bool:
    """Whether ``argv`` may ask for a dialect: the dialects are loaded only then."""
    return any(arg == "--dialect" or arg.startswith("--dialect=") for arg in argv)


def write_output(text: str) -> None:
    """Write to standard output as UTF-8 with ``\\n`` newlines, whatever the locale."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # replaced by a text-only stream (tests)
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8"))


def write_lines(lines: Iterable[str], batch: int = 1000) -> None:
    """Write lines as they are made (``-sl``): the output is never held whole."""
    pending: list[str] = []
    for line in lines:
        pending.append(line)
        if len(pending) >= batch:
            write_output("\n".join(pending) + "\n")
            pending.clear()
    if pending:
        write_output("\n".join(pending) + "\n")


if __name__ == "__main__":
    sys.exit(main())
