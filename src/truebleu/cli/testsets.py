"""The test-set side of the command line: ``-t/-l/--echo/--list/--origlang/--subset/--download/
--citation/-d``, printing what the ``sacrebleu`` command prints.

:mod:`truebleu.cli` parses the arguments; this module answers the requests that
end the command (``--download``, ``--list``, ``--citation``, ``--echo``), reads
a test set's references for scoring, and formats the ``--detail`` table.
Where sacreBLEU 2.6.0 crashes (``--citation`` raises ``TypeError``;
``-d`` with ``--origlang`` iterates over the letters of the language code),
truebleu prints the citation and the one requested original language.
"""

from __future__ import annotations

import argparse

from ..core.log import logger

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: every command loads this module
if TYPE_CHECKING:
    from ..core.references import ReferenceStreams

__all__ = ["add_testset_arguments", "finishing_output", "testset_references", "echo_text",
           "detail_text", "check_not_empty"]


class TestSetUsageError(ValueError):
    """A test-set command line that cannot be run (exit status 1)."""

    __test__ = False


def add_testset_arguments(parser: argparse.ArgumentParser) -> None:
    """sacreBLEU's test-set options (``-t`` and ``-l`` are added by the caller's parser)."""
    parser.add_argument("--citation", "--cite", action="store_true",
                        help="Print the BibTeX citation of the test set(s) (-t) and quit.")
    parser.add_argument("--list", action="store_true",
                        help="List the available test sets (for -l), or the fields of -t.")
    parser.add_argument("--origlang", "-ol", default=None,
                        help='Score only documents of this original language ("non-" negates).')
    parser.add_argument("--subset", default=None,
                        help="Score only documents whose annotation matches this regular "
                             "expression.")
    parser.add_argument("--download", default=None,
                        help="Download (into $SACREBLEU, else ~/.sacrebleu) a test set and quit.")
    parser.add_argument("--echo", nargs="+", default=None,
                        help="Print fields of the test set (src, ref, docid, origlang, ... or all) "
                             "and quit.")
    parser.add_argument("--detail", "-d", action="store_true",
                        help="Also print scores per original language and subset.")


def _list_text(args) -> str:
    from ..io.testsets.process import fieldnames
    from ..io.testsets.registry import get_testset, testset_names

    lines = []
    if args.test_set:
        testset = get_testset(args.test_set)
        for pair in [args.langpair] if args.langpair else list(testset.langpairs):
            lines.append(f"{pair}: {', '.join(fieldnames(testset, pair))}")
        return "\n".join(lines)
    if args.langpair:
        lines.append(f"The available test sets for {args.langpair} are:")
        src, _, trg = args.langpair.partition("-")
        names = [name for name in testset_names()
                 if {f"{src}-{trg}", f"{trg}-{src}"} & set(get_testset(name).langpairs)]
    else:
        lines.append("The available test sets are:")
        names = testset_names()
    for name in sorted(names):
        lines.append(f"{name:<30}: {get_testset(name).description.strip()}")
    return "\n".join(lines)


def _check_testsets(args) -> list[str]:
    from ..io.testsets.registry import get_testset, testset_names

    names = args.test_set.split(",")
    for name in names:
        if name not in testset_names():
            raise TestSetUsageError(f"Unknown test set {name!r}; run with --list to see the "
                                    "available test sets")
    if args.refs:
        raise TestSetUsageError("I need exactly one of (a) a predefined test set (-t) or "
                                "(b) a list of references")
    if args.langpair is None:
        raise TestSetUsageError("I need a language pair (-l). Use --list to see available "
                                "language pairs for this test set.")
    for name in names:
        pairs = list(get_testset(name).langpairs)
        if args.langpair not in pairs:
            raise TestSetUsageError(f"No such language pair {args.langpair!r}; available for "
                                    f"{name!r}: {', '.join(pairs)}")
    return names


def echo_text(name: str, langpair: str, requested: list[str], origlang=None, subset=None) -> str:
    """The ``--echo`` lines: the requested fields, tab-separated, one segment per line."""
    from ..io.testsets.process import fieldnames, get_files, read_field
    from ..io.testsets.registry import get_testset
    from ..io.testsets.subsets import filter_subset

    names = fieldnames(get_testset(name), langpair)
    files = get_files(name, langpair)
    if "all" in requested and len(requested) != 1:
        raise TestSetUsageError("Cannot use --echo all with other fields")
    if "all" in requested:
        requested = names
    refs = [field for field in names if field.startswith("ref")]
    if "ref" in requested and "ref" not in names and refs:
        requested = [min(refs) if field == "ref" else field for field in requested]
    for field in requested:
        if field not in names:
            raise TestSetUsageError(f"No such field {field} in test set {name} for language pair "
                                    f"{langpair}; available fields: {', '.join(names)}")
    streams = [read_field(files[names.index(field)]) for field in requested]
    streams = filter_subset(streams, name, langpair, origlang, subset)
    return "\n".join("\t".join(row) for row in zip(*streams))


def finishing_output(args) -> str | None:
    """The output of a request that ends the command, or None to go on and score."""
    if args.download:
        from ..io.testsets.process import download_test_set

        download_test_set(args.download, args.langpair)
        return ""
    if args.list:
        return _list_text(args)
    if args.citation:
        from ..io.testsets.registry import get_testset

        if not args.test_set:
            raise TestSetUsageError("I need a test set (-t).")
        texts = []
        for name in args.test_set.split(","):
            citation = get_testset(name).citation
            if citation is None:
                logger.error("No citation found for %s", name)
            else:
                texts.append(citation)
        return "\n".join(texts)
    if args.test_set is None:
        if args.echo:
            raise TestSetUsageError("--echo requires a test set (-t) and a language pair (-l)")
        return None
    if args.num_refs != 1:
        raise TestSetUsageError("--num-refs reads tab-separated references from one file; it "
                                "cannot be used with a test set (-t)")
    names = _check_testsets(args)
    if args.echo:
        return "\n".join(echo_text(name, args.langpair, args.echo, args.origlang, args.subset)
                         for name in names)
    return None


def testset_references(args) -> tuple[list[list[str]], list[str]]:
    """The scored reference streams of ``-t`` (test sets concatenated) and their file names."""
    from ..io.testsets.process import get_reference_files, read_field

    streams: list[list[str]] = []
    names: list[str] = []
    for name in args.test_set.split(","):
        files = get_reference_files(name, args.langpair)
        if not files:
            logger.warning("No references found for test set %s/%s.", name, args.langpair)
        for index, path in enumerate(files):
            if index == len(streams):
                streams.append([])
                names.append(path)
            streams[index].extend(read_field(path))
    return streams, names


def detail_text(metrics, system: list[str], references: ReferenceStreams, args) -> str:
    """sacreBLEU's ``--detail`` table: the score per original language and subset.

    ``metrics``: one metric or a list of them (each scores every subset).
    """
    metrics = metrics if isinstance(metrics, (list, tuple)) else [metrics]
    from ..io.testsets.subsets import available_origlangs, available_subsets, filter_subset
    from ..reports.color import Color

    origlangs = ([args.origlang] if args.origlang
                 else available_origlangs(args.test_set, args.langpair))
    if not origlangs:
        return "No subset information found. Consider using --origlang argument."
    results: dict[str, list] = {}
    for origlang in origlangs:
        subsets = [None] + ([args.subset] if args.subset is not None
                            else available_subsets(args.test_set, args.langpair))
        for subset in subsets:
            hyps, *refs = filter_subset([system, *references], args.test_set, args.langpair,
                                        origlang, subset)
            if not hyps:
                continue
            key = f"origlang={origlang}"
            if subset is None:
                key += " domain=ALL"
            elif subset.startswith("country:"):
                key += f" country={subset[8:]}"
            else:
                key += f" domain={subset}"
            for metric in metrics:
                results.setdefault(key, []).append((len(hyps), metric.corpus_score(hyps, refs)))
    if not results:
        return "No subset information found. Consider using --origlang argument."
    key_width = max(len(key) for key in results) + 1
    name_width = max(len(score.name) for _, score in next(iter(results.values())))
    lines = []
    for key, scores in results.items():
        label = Color.format(f"{key:<{key_width}}", "yellow")
        for count, score in scores:
            lines.append(f"{label}: sentences={count:<6} {score.name:<{name_width}} = "
                         f"{score.score:.{args.width}f}")
    return "\n".join(lines)


def check_not_empty(systems: list[list[str]], args) -> None:
    """sacreBLEU's error when the filters leave no segment."""
    if any(len(system) == 0 for system in systems):
        message = f"Test set {args.test_set!r} contains no sentence"
        if args.origlang is not None or args.subset is not None:
            message += " with"
            if args.origlang:
                message += f" origlang={args.origlang}"
            if args.subset:
                message += f" subset={args.subset}"
        raise TestSetUsageError(message)

