/* truebleu._native_core: the module itself: its definition (PEP 489
 * multi-phase init), its state, and the table of its entry points.
 *
 * The entry points live with their metric (bleu/, chrf/, ter/, significance/,
 * text/); each takes its arguments by position or by keyword. The work they
 * run without the GIL goes through the runtime (runtime/: one thread pool,
 * one status vocabulary, one string gatherer, Ctrl-C watching).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bleu/bindings.h"
#include "bleu/groups.h"
#include "bleu/prepared.h"
#include "chrf/bindings.h"
#include "chrf/chrf.h"
#include "dialects/bindings.h"
#include "runtime/gather.h"
#include "runtime/portable.h"
#include "runtime/signals.h"
#include "significance/bindings.h"
#include "state.h"
#include "ter/bindings.h"
#include "text/bindings.h"
#include "text/bindings_stream.h"
#include "text/tokenize.h"

/* release_scratch(): every kind of scratch the jobs keep between calls
 * (runtime/spares.h), freed now rather than at exit. */
static PyObject *core_release_scratch(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    (void)module;
    size_t bytes = tb_bleu_release_spares() + tb_groups_release_spares() + tb_chrf_release_spares() +
                   tb_gather_release_spares();
    return PyLong_FromSize_t(bytes);
}

/* A METH_VARARGS | METH_KEYWORDS function as the PyCFunction of the table. */
#define KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

static PyMethodDef core_methods[] = {
    {"chrf_statistics", KW(core_chrf_statistics),
     "chrf_statistics(hypotheses, references, char_order, word_order, whitespace, eps_smoothing,\n"
     "                factor, one_plus_factor, threads, out, scores) -> None\n\n"
     "Fill `out` (int64 buffer, one row of 3 * (char_order + word_order) per hypothesis) with\n"
     "chrF statistics against the best of its references (references[i]: a sequence of str);\n"
     "`scores` (a double buffer or None) receives each row's f-score."},
    {"chrf_matrix", KW(core_chrf_matrix),
     "chrf_matrix(hypotheses, references, char_order, word_order, whitespace, eps_smoothing,\n"
     "            factor, one_plus_factor, threads, out) -> None\n\n"
     "Fill `out` (double buffer of len(hypotheses) * len(references), row by row) with the\n"
     "sentence chrF of each hypothesis against each reference alone. Each line's n-grams are\n"
     "counted once; pass the same sequence twice for MBR (one profile per line)."},
    {"prepare", KW(core_prepare),
     "prepare(segments, mode, lowercase, threads, loose=False) -> Prepared\n\n"
     "Tokenize every string of every segment (a sequence of str) once. With loose,\n"
     "a str segment is one reference and None entries are dropped."},
    {"sentence_statistics", KW(core_sentence_statistics),
     "sentence_statistics(hypotheses, references_per_hyp, mode, lowercase, max_order, threads, out)\n\n"
     "prepare(references_per_hyp, loose=True) and statistics() in one pass, keeping nothing.\n"
     "Returns -1, or the index of the first hypothesis without a reference (nothing computed)."},
    {"prepare_streams", KW(core_prepare_streams),
     "prepare_streams(streams, mode, lowercase, threads) -> Prepared\n\n"
     "prepare() for sacreBLEU-style reference streams (None = missing reference)."},
    {"stream_statistics", KW(core_stream_statistics),
     "stream_statistics(hypotheses, streams, mode, lowercase, max_order, threads, out, totals=None)\n"
     "    -> (num_refs, tokenized_periods)\n\n"
     "prepare_streams() and statistics() in one pass, keeping nothing (a cold corpus); with\n"
     "out None, only the rows' sum, added to totals. Returns the number of references per\n"
     "segment (-1 when it varies) and how many hypotheses end in \" .\"."},
    {"stream_statistics_utf8", KW(core_stream_statistics_utf8),
     "stream_statistics_utf8(buffers, ends, n, mode, lowercase, max_order, threads, rows, totals)\n"
     "    -> (consumed, tokenized_periods)\n\n"
     "stream_statistics() of the first n lines of each buffer of valid UTF-8 (hypotheses first,\n"
     "then one per reference file) into rows (None: not kept); adds the rows to totals; the\n"
     "bytes each buffer's lines took."},
    {"utf8_scan", KW(core_utf8_scan),
     "utf8_scan(buffer, start, end=-1) -> (valid_end, chars, newlines, error, last_chars)\n\n"
     "Check buffer[start:end] as UTF-8 as Python's strict decoder would (an unfinished character\n"
     "at the end is not an error; end -1: the buffer's end); last_chars: the characters after\n"
     "the last newline."},
    {"utf8_first_long_line", KW(core_utf8_first_long_line),
     "utf8_first_long_line(buffer, start, end, first_chars, limit) -> index of the first\n"
     "newline-ended line of buffer[start:end] longer than limit characters, or -1"},
    {"utf8_line_chars", KW(core_utf8_line_chars),
     "utf8_line_chars(buffer, lines, end=-1) -> characters of the first `lines` lines (in\n"
     "buffer[:end]; -1: the whole buffer), newlines excluded"},
    {"statistics", KW(core_statistics),
     "statistics(hypotheses, prepared, mode, lowercase, max_order, threads, out, totals=None)\n"
     "    -> tokenized_periods\n\n"
     "Fill `out` (int64 buffer, one row per hypothesis) with BLEU statistics, or with out None\n"
     "add their sum to totals (one row); returns how many hypotheses end in \" .\"."},
    {"systems_statistics", KW(core_systems_statistics),
     "systems_statistics(systems, prepared, mode, lowercase, max_order, threads, outs)\n"
     "    -> tokenized_periods\n\n"
     "statistics() of each system (a sequence of str) against the same prepared references, in\n"
     "one job: system s's rows into outs[s] (an int64 buffer); a tuple of each system's count\n"
     "of hypotheses ending in \" .\"."},
    {"ids_statistics", KW(core_ids_statistics),
     "ids_statistics(hypotheses, references, dropped, max_order, threads, out, totals=None) -> bool\n\n"
     "BLEU statistics of token ids, without text: hypotheses[i] (a list or tuple of int ids, or a\n"
     "1-D integer buffer) against references[i] (a list or tuple of such sequences), the ids of\n"
     "`dropped` (an ascending int64 buffer) left out. Fills `out` (one row per hypothesis), or with\n"
     "out None adds the rows' sum to totals; True. False, with nothing computed, when a sequence\n"
     "is in another form or holds an id outside [0, 2**63) once the dropped ids are out."},
    {"ids_statistics_streams", KW(core_ids_statistics_streams),
     "ids_statistics_streams(hyp_ids, hyp_lengths, references, max_order, threads, out) -> None\n\n"
     "BLEU statistics of a stream of lines given as token ids: hyp_ids (int32 or int64, every\n"
     "line's ids one after another) and hyp_lengths (int64, each line's number of ids), against\n"
     "references, a list of (ids, lengths) pairs of the same form (line k's references: line k\n"
     "of each). Each id is one token. Fills `out` (one row per line)."},
    {"pair_statistics", KW(core_pair_statistics),
     "pair_statistics(hyp_prepared, ref_prepared, hyp_index, ref_index, max_order, threads, out)\n\n"
     "Statistics of chosen (hypothesis segment, reference segment) pairs; all pairs when\n"
     "both indexes are None."},
    {"cross_statistics", KW(core_cross_statistics),
     "cross_statistics(prepared, a_index, b_index, max_order, threads, rows, scores, smooth,\n"
     "                 smooth_value, effective_order)\n\n"
     "Single-reference statistics (and BLEU, when `scores` is a buffer) of every pair of\n"
     "sequences a_index[i], b_index[j] of the one segment of `prepared`, row-major."},
    {"bleu_scores", KW(core_bleu_scores),
     "bleu_scores(rows, max_order, smooth, smooth_value, effective_order, out)\n\n"
     "sacreBLEU's compute_bleu per statistics row (smooth: 0 none, 1 floor, 2 add-k, 3 exp)."},
    {"column_sums", KW(core_column_sums),
     "column_sums(table, width) -> list, or None for the caller to sum in Python\n\n"
     "Column sums of an int64 or double table of rows (doubles added in row order from 0.0);\n"
     "None when the table is of another type or an int64 sum would overflow."},
    {"tokenized_periods", KW(core_tokenized_periods),
     "tokenized_periods(hypotheses) -> int: how many end in \" .\" (str.endswith, unstripped)"},
    {"tokens_vocabulary", core_tokens_vocabulary, METH_NOARGS,
     "tokens_vocabulary() -> an empty vocabulary for tokens_stream (a capsule)"},
    {"tokens_vocabulary_words", core_tokens_vocabulary_words, METH_O,
     "tokens_vocabulary_words(vocabulary) -> list of bytes: its words (UTF-8) in the order of their ids"},
    {"tokens_stream", KW(core_tokens_stream),
     "tokens_stream(lines, mode, lowercase, vocabulary) -> (column, lengths, ids, size)\n\n"
     "BLEU's tokens of every line (a list of str or None) in one call: the page's token\n"
     "column of the lines (as page_token_column of the lines and their tokens joined by\n"
     "single spaces; None for None), each line's number of tokens (bytes of int64), every\n"
     "token's id in `vocabulary` (bytes of uint32; ids numbered in order of first occurrence\n"
     "over the calls sharing it), and the vocabulary's size after the call."},
    {"page_token_column", KW(core_page_token_column),
     "page_token_column(texts, joined) -> list: per segment, None where joined[i] is None or\n"
     "equals texts[i], the UTF-16 offsets where spaces inserted into texts[i] make joined[i],\n"
     "or else joined[i] (the viewer page's token column)."},
    {"tokenize", KW(core_tokenize),
     "tokenize(line, mode, lowercase) -> list of tokens (as segment_tokens); line: str, or bytes of\n"
     "UTF-8 (a native reader's line; non-ASCII only for 13a without lowercase)"},
    {"ter_statistics", KW(core_ter_statistics),
     "ter_statistics(hypotheses, references, threads, out, max_shift_size=10, *, tokenize=False,\n"
     "               normalized=False, no_punct=False, asian_support=False, case_sensitive=False)\n"
     "    -> None\n\n"
     "TER statistics [edits, average reference length] (float64, one row per hypothesis)\n"
     "into `out`. References are tercom-tokenized strings (tokens separated by single\n"
     "spaces: ter_tokenize(..., reference=True)); references[i] is the list of references of\n"
     "hypothesis i. Hypotheses are tokenized strings too, or with tokenize=True the lines as\n"
     "given, tokenized here with the options (ter_tokenize's). A shift moves at most\n"
     "max_shift_size words (sacreBLEU: 10; torchmetrics: 9)."},
    {"ter_alignment", KW(core_ter_alignment),
     "ter_alignment(hypotheses, references, threads, max_shift_size=10, *, tokenize=False,\n"
     "              normalized=False, no_punct=False, asian_support=False, case_sensitive=False)\n"
     "    -> list of (reference, edits, ref_length, shifts, steps)\n\n"
     "What TER's search did to each hypothesis (ter_statistics' arguments; one pair is a\n"
     "batch of one): the index of the reference with the fewest edits (the first on ties),\n"
     "the edits and average reference length of ter_statistics' row, the shifts applied\n"
     "against that reference as (start, length, target) in order, and the edit path from the\n"
     "shifted hypothesis to it as a str of steps: '=' match, 's' substitution, 'h' a\n"
     "hypothesis word alone (deleted), 'r' a reference word alone (inserted)."},
    {"mteval_table", KW(core_mteval_table),
     "mteval_table(ids, nrefs, max_order, no_context_token, threads=1) -> (table, pairs, lengths)\n\n"
     "The n-grams (orders 1..max_order) of reference lines given as int32 token ids, each line\n"
     "ended by -1, nrefs lines per segment, numbered in order of first occurrence: the table (a\n"
     "capsule for mteval_sums, with each segment's clip counts), the distinct n-gram count << 32 |\n"
     "context count as uint64 bytes (the context of a unigram, or of a bigram whose first token is\n"
     "no_context_token, is every reference word), per line its length as int64 bytes. Each\n"
     "segment's clip counts are gathered on up to threads threads; the table is the same for any count."},
    {"mteval_sums", KW(core_mteval_sums),
     "mteval_sums(table, weights, hypotheses, threads=1) -> (matches, totals, info, sizes)\n\n"
     "mteval's corpus sums (truebleu.dialects.mteval): clipped matches and totals per order, NIST's\n"
     "information per order (each segment's weight * matched of its matched n-grams summed exactly,\n"
     "as math.fsum), and each hypothesis' length as int64 bytes. hypotheses: int32 ids (-2 for a\n"
     "word in no reference), one line per segment, each ended by -1; weights: float64 per pair of\n"
     "mteval_table's pairs (an n-gram's weight is its pair's). The segments are counted on up to\n"
     "threads threads; the sums are the same for any count."},
    {"exact_sum", KW(core_exact_sum),
     "exact_sum(values) -> float\n\n"
     "The sum of a float64 buffer's finite values, exact and rounded once (as math.fsum), by the\n"
     "accumulator mteval_sums adds NIST's information with (dialects/exact_sum.h)."},
    {"mteval_13a_ids", KW(core_mteval_13a_ids),
     "mteval_13a_ids(lines, lowercase, vocabulary=None, threads=1) -> (vocabulary, ids) or None\n\n"
     "mteval-v13a's tokens of each line (truebleu.dialects.mteval: the SGML step, entities,\n"
     "ASCII lowercasing if asked, the 13a rules) as int32 ids, each line's followed by -1 (bytes).\n"
     "Without vocabulary the lines make a new one (ids from 0; a capsule for later calls); with\n"
     "it, a token it does not hold is -2, and the lines are tokenized on up to threads threads\n"
     "(the same ids for any count). None when a line holds U+0000 or U+001C..U+001F\n"
     "(Python splits on them, Perl does not): the specification's path takes such lines."},
    {"ter_tokenize", KW(core_ter_tokenize),
     "ter_tokenize(lines, normalized=False, no_punct=False, asian_support=False,\n"
     "             case_sensitive=False, reference=False) -> list of str\n\n"
     "tercom's tokens of each line (truebleu.tokenizers.tokenizer_ter, sacreBLEU's TER: the\n"
     "line right-stripped, words joined by single spaces); reference=True tokenizes twice,\n"
     "as sacreBLEU does to TER's references."},
    {"pcg64_integers", KW(core_pcg64_integers),
     "pcg64_integers(state, n, count) -> bytes: NumPy's Generator.choice(n, count) as int64"},
    {"pcg64_bools", KW(core_pcg64_bools),
     "pcg64_bools(state, count) -> bytes: NumPy's Generator.integers(2, count, dtype=bool)"},
    {"resample_sums", KW(core_resample_sums),
     "resample_sums(state, n_samples, tables, width, float32=True, threads=1) -> bytes: int64\n"
     "sums of bootstrap samples (float32=True: refused where float32 sums could round; the\n"
     "draws one stream, the sums on `threads` threads, the same on any number)"},
    {"randomization_sums", KW(core_randomization_sums),
     "randomization_sums(masks, first, others, width) -> (a, b): int64 sums of AR trials"},
    {"word_bucket_counts", KW(core_word_bucket_counts),
     "word_bucket_counts(ref_lengths, ref_ids, hyp_lengths, hyp_ids, bucket, n_buckets) -> bytes:\n"
     "int64 clipped word matches and hypothesis words per segment and frequency bucket (the\n"
     "report's buckets; viewer/buckets.py)"},
    {"pairwise_sum", KW(core_pairwise_sum),
     "pairwise_sum(values) -> float: NumPy's pairwise sum of a sequence of floats (np.add.reduce\n"
     "of a float64 array of at most 8192 values; significance/native.py's pairwise_sum)"},
    {"bleu_rows", KW(core_bleu_rows),
     "bleu_rows(sums, max_order, smooth, smooth_value, effective_order, float32, in_place,\n"
     "          python_sum) -> bytes of doubles: BLEU of summed rows (bleu/score.h)"},
    {"class_table", core_class_table, METH_NOARGS,
     "class_table() -> bytes of 0x110000 character classes (1 P, 2 S, 4 N, 8 zh)"},
    {"release_scratch", core_release_scratch, METH_NOARGS,
     "release_scratch() -> int: frees the scratch memory the jobs keep between calls (not that\n"
     "of a call running now); the bytes freed (core.kernels.release_scratch)"},
    {NULL, NULL, 0, NULL},
};

/* Py_mod_exec: the state of a new module object, and its attributes. */
static int module_exec(PyObject *module)
{
    tb_state *st = tb_state_of(module);
    st->main_thread = tb_main_thread_ident();
    if (!(st->lower = PyUnicode_InternFromString("lower")) ||
        !(st->endswith = PyUnicode_InternFromString("endswith")) ||
        !(st->space_period = PyUnicode_FromString(" .")) ||
        !(st->prepared_type = (PyTypeObject *)tb_prepared_type_new(module)))
        return -1;
    if (PyModule_AddObjectRef(module, "Prepared", (PyObject *)st->prepared_type) < 0 ||
        PyModule_AddIntConstant(module, "MODE_NONE", TB_NONE) < 0 ||
        PyModule_AddIntConstant(module, "MODE_13A", TB_13A) < 0 ||
        PyModule_AddIntConstant(module, "MODE_INTL", TB_INTL) < 0 ||
        PyModule_AddIntConstant(module, "MODE_ZH", TB_ZH) < 0 ||
        PyModule_AddIntConstant(module, "MODE_CHAR", TB_CHAR) < 0 ||
        PyModule_AddIntConstant(module, "SUM_IS_PLAIN", PY_VERSION_HEX < 0x030C0000) < 0 ||
        PyModule_AddStringConstant(module, "REGEX_VERSION", tb_regex_version()) < 0 ||
        /* truebleu --version: which compiler built this core, and how */
        PyModule_AddStringConstant(module, "COMPILER", TB_COMPILER) < 0 ||
        PyModule_AddIntConstant(module, "PORTABLE_FALLBACKS", TB_FALLBACKS_FORCED) < 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg)
{
    tb_state *st = tb_state_of(module);
    Py_VISIT(st->prepared_type);  /* (the heap type refers back to the module) */
    return 0;
}

static int module_clear(PyObject *module)
{
    tb_state *st = tb_state_of(module);
    Py_CLEAR(st->prepared_type);
    Py_CLEAR(st->lower);
    Py_CLEAR(st->endswith);
    Py_CLEAR(st->space_period);
    return 0;
}

static void module_free(void *module)
{
    module_clear((PyObject *)module);
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, (void *)module_exec},
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "truebleu._native_core",
    .m_doc = "truebleu's compiled core: tokenizing, n-gram counting and clipping.",
    .m_size = sizeof(tb_state),
    .m_methods = core_methods,
    .m_slots = core_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__native_core(void)
{
    return PyModuleDef_Init(&core_module);
}
