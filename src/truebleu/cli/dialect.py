"""``truebleu ... --dialect NAME``: score as another tool does.

The main ``truebleu`` command hands the whole argument list here when a
dialect other than ``sacrebleu`` is requested (see :func:`requested_dialect`).
Each tool's own options are accepted under the tool's own spelling::

    truebleu REF [REF ...] -i HYP [HYP ...] --dialect mteval-v13a [-c]
        [--brevity-penalty closest|shortest] [--international-tokenization] [--nist]
    truebleu REF ... -i HYP --dialect multi-bleu|multi-bleu-detok [-lc]
    truebleu REF ... -i HYP --dialect nltk [--weights 0.25 0.25 0.25 0.25]
        [--smoothing method0..method7] [--epsilon E] [--alpha A] [--k K] [--auto-reweigh] [-tok T]
    truebleu REF ... -i HYP --dialect tf-nmt|hf-evaluate [--max-order N] [--smooth]
        [-tok 13a|whitespace]
    truebleu REF ... -i HYP --dialect torchmetrics [--max-order N] [--smooth] [--weights ...]

Common: ``-b`` (score only), ``-w N`` (decimals), ``-f json|text`` (default json,
as sacreBLEU 2), ``-sl`` (sentence level), ``-e ENCODING``, ``--max-line-length N``.
Without ``-i`` (or with ``-i -``) the hypotheses are read from standard input.
With several systems, every text line starts with the system's file name.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from ..dialects import DIALECTS, DialectScore, ToolError, get_dialect
from .options import UsageError, add_max_line_length_argument, check_max_line_length
from .output import write_output

# options of each dialect: argparse destination -> constructor keyword
_DIALECT_OPTIONS: dict[str, dict[str, Optional[str]]] = {
    "mteval": {"case_sensitive": "lowercase", "brevity_penalty": "brevity_penalty",
               "international_tokenization": "international_tokenization", "nist": None},
    "multi-bleu": {"lowercase": "lowercase"},
    "nltk": {"weights": "weights", "smoothing": "smoothing", "epsilon": "epsilon",
             "alpha": "alpha", "k": "k", "auto_reweigh": "auto_reweigh", "tokenize": "tokenize"},
    "tf-nmt": {"max_order": "max_order", "smooth": "smooth", "tokenize": "tokenize"},
    "torchmetrics": {"max_order": "n_gram", "smooth": "smooth", "weights": "weights",
                     "float_backend": "backend"},
}
_FAMILY = {"mteval-v13a": "mteval", "mteval-v14": "mteval", "multi-bleu": "multi-bleu",
           "multi-bleu-detok": "multi-bleu", "nltk": "nltk", "tf-nmt": "tf-nmt",
           "hf-evaluate": "tf-nmt", "torchmetrics": "torchmetrics"}
_PERCENT_SCALE = ("multi-bleu", "multi-bleu-detok")


def requested_dialect(argv: Sequence[str]) -> Optional[str]:
    """The value of ``--dialect NAME`` / ``--dialect=NAME`` in ``argv`` (last one wins), or None.

    The main CLI calls this *before* parsing, since the tools' options
    (``-c``, ``--brevity-penalty`` ...) are unknown to its own parser.
    """
    found = None
    for i, arg in enumerate(argv):
        if arg == "--dialect" and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith("--dialect="):
            found = arg.split("=", 1)[1]
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="truebleu --dialect NAME", allow_abbrev=False,
        description="Score as another BLEU tool does (see docs/dialects.md).")
    parser.add_argument("refs", nargs="*", default=[], help="Reference file(s).")
    parser.add_argument("--input", "-i", nargs="*", default=None,
                        help="Hypothesis file(s); standard input if absent.")
    parser.add_argument("--dialect", required=True,
                        choices=[d for d in DIALECTS if d != "sacrebleu"])
    parser.add_argument("--encoding", "-e", default="utf-8")
    add_max_line_length_argument(parser)
    parser.add_argument("--score-only", "-b", action="store_true", help="Print the score only.")
    parser.add_argument("--width", "-w", type=int, default=None,
                        help="Decimals (default: 2 for percentages, 4 for fractions).")
    parser.add_argument("--format", "-f", choices=["json", "text"], default="json")
    parser.add_argument("--sentence-level", "-sl", action="store_true")
    parser.add_argument("--quiet", "-q", action="store_true", help=argparse.SUPPRESS)
    tool = parser.add_argument_group("tool options (each valid for its dialects only)")
    tool.add_argument("-c", dest="case_sensitive", action="store_true", default=None,
                      help="mteval: keep case (mteval lowercases by default).")
    tool.add_argument("--brevity-penalty", choices=["closest", "shortest"], default=None,
                      help="mteval: reference length rule.")
    tool.add_argument("--international-tokenization", action="store_true", default=None,
                      help="mteval: Unicode tokenization rules.")
    tool.add_argument("--nist", action="store_true", default=None,
                      help="mteval: report the NIST score as the score.")
    tool.add_argument("--lowercase", "-lc", action="store_true", default=None,
                      help="multi-bleu, multi-bleu-detok: lowercase.")
    tool.add_argument("--weights", nargs="+", type=float, default=None,
                      help="nltk, torchmetrics: n-gram weights.")
    tool.add_argument("--smoothing", choices=[f"method{i}" for i in range(8)], default=None,
                      help="nltk: SmoothingFunction method.")
    tool.add_argument("--epsilon", type=float, default=None, help="nltk: method1's epsilon.")
    tool.add_argument("--alpha", type=float, default=None, help="nltk: method6's alpha.")
    tool.add_argument("--k", type=float, default=None, help="nltk: method4/7's k.")
    tool.add_argument("--auto-reweigh", action="store_true", default=None,
                      help="nltk: auto_reweigh.")
    tool.add_argument("--tokenize", "-tok", default=None,
                      help="nltk, tf-nmt: 'whitespace' or a truebleu tokenizer name.")
    tool.add_argument("--max-order", type=int, default=None,
                      help="tf-nmt, torchmetrics: n-gram order.")
    tool.add_argument("--smooth", action="store_true", default=None,
                      help="tf-nmt, torchmetrics: the tool's add-one smoothing.")
    tool.add_argument("--float-backend", choices=["auto", "torch", "python"], default=None,
                      help="torchmetrics: float32 arithmetic by torch or emulated.")
    return parser


def _options(args) -> dict:
    family = _FAMILY[args.dialect]
    allowed = _DIALECT_OPTIONS[family]
    every = {dest for opts in _DIALECT_OPTIONS.values() for dest in opts}
    options = {}
    for dest in sorted(every):
        value = getattr(args, dest)
        if value is None:
            continue
        if dest not in allowed:
            flag = "--" + dest.replace("_", "-") if dest != "case_sensitive" else "-c"
            raise ToolError(f"{flag} does not apply to dialect {args.dialect}")
        keyword = allowed[dest]
        if keyword is None:
            continue
        if dest == "case_sensitive":
            value = not value
        if dest == "k" and float(value).is_integer():
            value = int(value)
        if dest == "alpha" and float(value).is_integer():
            value = int(value)
        options[keyword] = value
    return options


def _read(path: str, args) -> list[str]:
    from ..io import read_lines

    return read_lines(path, args.encoding, args.max_line_length)


def _report(score: DialectScore, args, width: int, name: str) -> str:
    """One score; text lines start with ``name:`` when several systems are scored."""
    label = f"{name}: " if name else ""
    main = score.score
    if args.nist:  # an mteval dialect (checked in main), which computes NIST
        assert score.nist is not None
        main = score.nist
    if args.score_only:
        return f"{label}{main:.{width}f}"
    if args.format == "text":
        text = f"{score.signature} = {main:.{width}f}"
        if score.nist is not None and not args.nist:
            text += f" NIST = {score.nist:.4f}"
        precisions = "/".join(f"{p:.{width}f}" for p in score.precisions)
        return (f"{label}{text} {precisions} (BP = {score.bp:.3f} ratio = {score.ratio:.3f} "
                f"hyp_len = {score.sys_len} ref_len = {score.ref_len})")
    record: dict[str, object] = {"name": "NIST" if args.nist else "BLEU", "dialect": score.dialect,
              "score": round(main, width), "signature": score.signature}
    if name:
        record["system"] = name
    record.update({"bleu": score.bleu, "nist": score.nist, "precisions": score.precisions,
                   "bp": score.bp, "ratio": score.ratio, "hyp_len": score.sys_len,
                   "ref_len": score.ref_len, "exact_score": score.score})
    return json.dumps(record, ensure_ascii=False, indent=1)


def main(argv: Sequence[str]) -> int:
    """Run the dialect command line on the full ``truebleu`` argv; return the exit status.

    Scores are written as they are computed (``-sl`` never holds its output);
    a closed output pipe is handled by :func:`truebleu.cli.main`.
    """
    from ..io import is_stdin

    parser = build_parser()
    args = parser.parse_args(list(argv))
    try:
        if not args.refs:
            raise ToolError("give at least one reference file")
        if args.nist and _FAMILY[args.dialect] != "mteval":
            raise ToolError(f"--nist does not apply to dialect {args.dialect}")
        check_max_line_length(args.max_line_length)
        inputs = args.input if args.input else ["-"]
        if sum(map(is_stdin, [*args.refs, *inputs])) > 1:
            raise ToolError("standard input can be read only once: give '-' once, and give "
                            "-i files when a reference is '-'")
        dialect = get_dialect(args.dialect, **_options(args))
        references = [_read(path, args) for path in args.refs]
        width = args.width if args.width is not None else (
            2 if args.dialect in _PERCENT_SCALE and not args.nist else 4)
        for path in inputs:
            hypotheses = _read(path, args)
            shown = "<stdin>" if is_stdin(path) else path
            for ref_path, refs in zip(args.refs, references):
                if len(refs) != len(hypotheses):
                    raise ToolError(f"{shown} has {len(hypotheses)} lines but {ref_path} has "
                                    f"{len(refs)}; one line per segment is needed")
            name = shown if len(inputs) > 1 else ""
            try:
                if args.sentence_level:
                    for i, hyp in enumerate(hypotheses):
                        score = dialect.sentence_score(hyp, [refs[i] for refs in references])
                        write_output(_report(score, args, width, name) + "\n")
                else:
                    write_output(_report(dialect.corpus_score(hypotheses, references),
                                         args, width, name) + "\n")
            except ZeroDivisionError as exc:  # NLTK's own behaviour (the Python API keeps it)
                what = "it is empty" if not hypotheses else "the tool divides by zero"
                raise ToolError(f"{shown}: the {args.dialect} dialect cannot score it: {what} "
                                f"({type(exc).__name__}: {exc})") from None
    except (ToolError, UsageError, ValueError, TypeError) as error:
        print(f"truebleu: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
