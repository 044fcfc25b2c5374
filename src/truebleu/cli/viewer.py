"""``truebleu report`` and ``truebleu serve``: the viewer from the command line.

Both take the scoring command's inputs, ``-m`` and metric flags (references,
``-i`` systems, ``-m bleu chrf ter``, ``-tok``, ``-lc``, ``-cw``, ``--ter-*``, ...),
``compare``'s ``--scores NAME=FILE`` with its directions and ``--gold``, plus
``--source`` and ``--doc-ids``; systems are named after their files. Without
``-m`` and ``--scores`` the page is BLEU's alone. ``report`` writes one
self-contained HTML file; ``serve`` shows the same page from a local server.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from ..core.progress import set_quiet
from ..io import InputError, iter_lines
from ..tokenizers import target_language
from .external_scores import (
    ExternalScoreFiles,
    add_external_score_arguments,
    gold_metric,
    read_external_scores,
)
from .inputs import files_title, read_references, system_names
from .options import (
    UsageError,
    add_backend_argument,
    add_encoding_argument,
    add_language_pair_argument,
    add_max_line_length_argument,
    add_metric_flags,
    add_metrics_option,
    add_wmt_xml_arguments,
    check_max_line_length,
    check_metric_flags,
    make_metrics,
)
from .output import EXIT_INTERRUPTED


def build_parser(command: str) -> argparse.ArgumentParser:
    what = ("write an interactive HTML report (one self-contained file)" if command == "report"
            else "show the interactive report from a local server")
    parser = argparse.ArgumentParser(
        prog=f"truebleu {command}",
        description=f"truebleu {command}: {what}.\n"
                    f"    truebleu {command} REF [REF ...] -i SYS [SYS ...]"
                    + (" -o report.html" if command == "report" else "")
                    + " [--source SRC] [--doc-ids IDS]\n"
                    f"    truebleu {command} --wmt-xml FILE"
                    + (" -o report.html" if command == "report" else ""),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("refs", nargs="*", help="Reference file(s), one segment per line.")
    parser.add_argument("--input", "-i", nargs="+", default=None,
                        help="System output file(s); each system is named after its file.")
    add_wmt_xml_arguments(parser, "Read source, references, systems and document ids from a "
                                  "WMT XML file (instead of REF and -i).")
    parser.add_argument("--num-refs", "-nr", type=int, default=1,
                        help="Split the reference file on tabs into this many references.")
    parser.add_argument("--source", default=None, help="The source segments (shown and searchable).")
    parser.add_argument("--doc-ids", default=None,
                        help="One document id per line (documents ranked by ΔBLEU).")
    parser.add_argument("--title", default=None, help="Title of the report.")
    add_encoding_argument(parser)
    add_language_pair_argument(parser)
    add_max_line_length_argument(parser)
    metrics = parser.add_argument_group(
        "Metrics (default: the BLEU report; -m shows each metric's scores, clusters and "
        "sentence scores side by side, with how they agree)")
    add_metrics_option(metrics)
    add_metric_flags(parser)
    add_external_score_arguments(metrics, command)
    # no -m and no --scores: today's BLEU-only page; BLEU never warns about tokenized-looking
    # output here (the page shows the tokens); the metrics run on the default threads
    parser.set_defaults(metrics=None, force=True, threads=None)
    stats = parser.add_argument_group("Confidence intervals and significance")
    stats.add_argument("--n-samples", type=int, default=1000,
                       help="Bootstrap samples for intervals, clusters and tests (default: %(default)s).")
    stats.add_argument("--seed", type=int, default=12345,
                       help="Seed of the bootstrap (default: %(default)s).")
    if command == "report":
        parser.add_argument("--output", "-o", required=True,
                            help="The HTML file to write ('-': standard output). It is replaced "
                                 "whole when complete, and may not be one of the inputs.")
    else:
        parser.add_argument("--host", default="127.0.0.1",
                            help="Address to bind (default: %(default)s, this machine only); "
                                 "any other needs --allow-remote.")
        parser.add_argument("--allow-remote", action="store_true",
                            help="Allow a --host that other machines can reach; every request "
                                 "must then carry the access token printed at start-up.")
        parser.add_argument("--port", type=int, default=8000,
                            help="Port (default: %(default)s; 0 = any free).")
        parser.add_argument("--open", action="store_true", help="Open the page in a browser.")
    add_backend_argument(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="Print nothing but errors.")
    return parser


def _bleu_options(args) -> dict:
    return dict(lowercase=args.lowercase, tokenize=args.tokenize, smooth_method=args.smooth_method,
                smooth_value=args.smooth_value, max_ngram_order=args.max_ngram_order,
                effective_order=args.effective_order, trg_lang=target_language(args.langpair),
                spm_model=args.spm_model, backend=args.backend)


def _metric_arguments(args, references, names: list[str], n_segments: int) -> dict:
    """``report()``'s ``metrics``, ``scores``, ``higher_is_better`` and ``gold`` of the
    command line: none without ``-m`` and ``--scores`` (the BLEU-only page)."""
    external = ExternalScoreFiles(args)
    if args.metrics is None and not external.names:
        if args.gold is not None:
            raise UsageError("--gold measures metrics against each other: give -m or --scores")
        return {}
    if args.metrics is None:  # --scores alone: beside BLEU, as compare shows them
        args.metrics = ["bleu"]
    check_metric_flags(args, args.metrics)
    objects = make_metrics(args, references)
    gold = gold_metric(args.gold, objects, external.names)
    # "bleu" by name: the report's own BLEU (the same flags), computed once
    metrics = ["bleu" if key == "BLEU" else metric for key, metric in objects.items()]
    scores = read_external_scores(external, names, n_segments, args.max_line_length)
    return {"metrics": metrics, "scores": scores,
            "higher_is_better": external.higher_is_better, "gold": gold}


def build_report(args):
    from ..viewer import report
    from ..viewer.model import check_report

    if args.n_samples < 1:
        raise UsageError("--n-samples must be >= 1")
    if args.wmt_xml is not None:
        return build_wmt_xml_report(args)
    if not args.refs or not args.input:
        raise UsageError("give reference file(s) and -i system file(s), or --wmt-xml FILE")
    if args.num_refs < 1:
        raise UsageError("--num-refs must be >= 1")
    if args.num_refs != 1 and len(args.refs) > 1:
        raise UsageError("--num-refs reads tab-separated references from one file; give one file")
    check_max_line_length(args.max_line_length)
    references = read_references(args.refs, args.num_refs, args.encoding,
                                 max_line_length=args.max_line_length)
    check_report(args.n_samples, len(references[0]), len(args.input), option="--n-samples")
    ref_names = (system_names(args.refs) if args.num_refs == 1
                 else [f"{os.path.basename(args.refs[0])} ({k + 1})" for k in range(args.num_refs)])
    if len(set(args.input)) != len(args.input):
        raise UsageError("a system file is given twice")
    names = system_names(args.input)
    limit = args.max_line_length
    systems = {name: [line.rstrip() for line in iter_lines(path, args.encoding, limit)]
               for name, path in zip(names, args.input)}
    n = len(references[0])
    inputs = [(path, lines) for path, lines in zip(args.input, systems.values())]
    source = doc_ids = None
    if args.source:
        source = [line.rstrip() for line in iter_lines(args.source, args.encoding, limit)]
        inputs.append((args.source, source))
    if args.doc_ids:
        doc_ids = [line.strip() for line in iter_lines(args.doc_ids, args.encoding, limit)]
        inputs.append((args.doc_ids, doc_ids))
    wrong = [f"{path} has {len(lines)} lines" for path, lines in inputs if len(lines) != n]
    if wrong:
        raise InputError(f"{args.refs[0]} has {n} lines but " + ", ".join(wrong)
                         + "; every file must have one line per segment")
    # the reference files as named on the command line, one or several alike (files_title)
    title = args.title or f"{_counted(len(systems), 'system')} against {files_title(args.refs)}"
    every_metric = _metric_arguments(args, references, names, n)
    return report(references, systems, reference_names=ref_names, source=source, doc_ids=doc_ids,
                  title=title, seed=args.seed, n_samples=args.n_samples, **every_metric,
                  **_bleu_options(args))


def build_wmt_xml_report(args):
    """A report of a WMT XML file: its source, references, systems and documents.

    Segments without any chosen reference are left out, as sacreBLEU processes
    the official test sets; a missing system output is an empty segment (as in
    sacreBLEU's text files), a missing reference is no reference.
    """
    from ..io.wmt_xml import keep_referenced, read_wmt_xml
    from ..viewer import report
    from ..viewer.model import check_report

    if args.refs or args.input or args.source or args.doc_ids:
        raise UsageError("--wmt-xml reads everything from the file; give no reference files, "
                         "-i, --source or --doc-ids")
    testset = keep_referenced(read_wmt_xml(args.wmt_xml), args.wmt_ref)
    translators = args.wmt_ref or list(testset.references)
    chosen = args.wmt_system or list(testset.systems)
    unknown = [name for name in chosen if name not in testset.systems]
    if unknown:
        raise UsageError(f"{args.wmt_xml}: no system {', '.join(unknown)}; "
                         f"the file has {', '.join(testset.systems)}")
    if not chosen:
        raise UsageError(f"{args.wmt_xml} holds no system outputs")
    if args.langpair is None:
        args.langpair = f"{testset.src_lang}-{testset.trg_lang}"  # picks zh/ja/ko tokenizers
    check_report(args.n_samples, len(testset.source), len(chosen), option="--n-samples")
    title = args.title or (f"{os.path.basename(args.wmt_xml)}: {len(chosen)} systems, "
                           f"references {', '.join(translators)}")
    references = [testset.references[t] for t in translators]
    every_metric = _metric_arguments(args, references, chosen, len(references[0]))
    return report(references,
                  {name: [line or "" for line in testset.systems[name]] for name in chosen},
                  reference_names=translators, source=testset.source, doc_ids=testset.doc_ids,
                  title=title, seed=args.seed, n_samples=args.n_samples, **every_metric,
                  **_bleu_options(args))


def input_files(args) -> list[str]:
    """Every file the command reads: the report may not be written over any of them."""
    named = [*args.refs, *(args.input or ()), args.source, args.doc_ids, args.wmt_xml,
             args.spm_model, *ExternalScoreFiles(args).paths()]
    return [path for path in named if path is not None]


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command, rest = argv[0], argv[1:]
    args = build_parser(command).parse_args(rest)
    if command == "serve":
        from ..viewer.access import RemoteAccessRefused, check_bind_address

        try:  # before any work: a refused address is a usage error
            check_bind_address(args.host, args.allow_remote, switch="--allow-remote")
        except RemoteAccessRefused as exc:
            print(f"truebleu serve: error: --host {exc}", file=sys.stderr)
            return 2
    set_quiet(args.quiet)
    try:
        from ..viewer.collector import collector_paused
        from ..viewer.early_gzip import texts_deflated_early

        # (millions of objects, no cycles to find: viewer/collector.py); the page will be
        # made, so its texts are deflated while the report is computed (viewer/early_gzip.py)
        with collector_paused(), texts_deflated_early():
            result = build_report(args)
            if command == "report":
                path = result.save(args.output, inputs=input_files(args))
                n_systems, n_segments = len(result.system_names), result.data.inputs.n_segments
                # freed here, by reference counting: the collector, turned on again with the
                # report alive, would first walk every object it holds (0.1 s at 200,000
                # segments) to find no cycle
                del result
        if command == "report":
            if not args.quiet:
                where = "standard output" if args.output == "-" else str(path)
                size = (f"{path.stat().st_size / 1e6:.1f} MB; "
                        if args.output != "-" and path.is_file() else "")
                print(f"truebleu: wrote {where} ({size}{_counted(n_systems, 'system')}, "
                      f"{_counted(n_segments, 'segment')})", file=sys.stderr)
            return 0
        from ..viewer.server import serve

        serve(result, host=args.host, port=args.port, open_browser=args.open, quiet=args.quiet,
              allow_remote=args.allow_remote)
        # serve() returns only when Ctrl-C stopped it (it has said so on standard error)
        return EXIT_INTERRUPTED
    except (InputError, UsageError, ValueError, ImportError, OSError) as exc:
        print(f"truebleu {command}: error: {exc}", file=sys.stderr)
        return 1


def _counted(n: int, noun: str) -> str:
    """``1 system``, ``3 systems``: what a person writes (the title and the summary line)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
