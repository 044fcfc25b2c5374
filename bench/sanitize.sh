#!/usr/bin/env bash
# Build the compiled core with AddressSanitizer + UndefinedBehaviorSanitizer in a
# scratch copy of the repository and run the native tests (and a short fuzz) on it.
#
#   bench/sanitize.sh [python] [fuzz-inputs] [ter-fuzz-segments]
#   SANITIZE_TESTS="tests/native/test_native_interrupt.py" bench/sanitize.sh python   # those tests only
#   SANITIZE_TESTS="tests/native/test_native_interrupt.py" bench/sanitize.sh python 2000 200   # and the fuzzers
#   SANITIZE_CFLAGS=-DTB_DIRECT_ID_BITS=6 bench/sanitize.sh python 2000 200   # extra C flags
#   SANITIZE_CFLAGS="-DTB_CHRF_DIRECT_BITS=2" bench/sanitize.sh python 2000 200   # chrF's hash-table paths
#   SANITIZE_CFLAGS=-DTB_MATCHER_BASE_MAX=64 bench/sanitize.sh python 2000 200   # the matcher restarts often
#
# The sanitizer runtime must be loaded before Python starts (LD_PRELOAD); leak
# detection is off because the interpreter itself does not free everything at
# exit (tests/native/test_native_leak.py checks our leaks). Any ASan/UBSan report aborts
# the step it happens in; every step runs even when an earlier one failed, and the
# run ends with the list of failed steps (exit status 1 if any). With SANITIZE_TESTS, a quick
# run on the changed code, only those tests run, and the fuzzers too when their counts are given.
set -euo pipefail
PY=${1:-python}
FUZZ_GIVEN=$(( $# >= 2 ))  # with SANITIZE_TESTS, fuzz only when asked to
FUZZ_N=${2:-50000}
TER_FUZZ_N=${3:-1000}
REPO=$(cd "$(dirname "$0")/.." && pwd)
# setup.py build_ext reads pyproject.toml's SPDX license, which setuptools < 77 rejects
# (a fresh virtual environment of Python 3.11 comes with 65): say so before building
if ! "$PY" -c 'import sys, setuptools; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null; then
    echo "sanitize.sh: $PY needs setuptools >= 77 to build the core (pip install -U setuptools)" >&2
    exit 2
fi
WORK=$(mktemp -d /tmp/truebleu-sanitize.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

cp -r "$REPO/src" "$REPO/tests" "$REPO/bench" "$REPO/tools" "$REPO/setup.py" "$REPO/pyproject.toml" "$WORK/"
[ -f "$REPO/README.md" ] && cp "$REPO/README.md" "$WORK/"
find "$WORK/src" -name '*.so' -delete
cd "$WORK"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="$SAN -g -O1 ${SANITIZE_CFLAGS:-}" LDFLAGS="$SAN" "$PY" setup.py -q build_ext --inplace
ls src/truebleu/_native_core*.so >/dev/null

ASAN_LIB=$(${CC:-gcc} -print-file-name=libasan.so)
UBSAN_LIB=$(${CC:-gcc} -print-file-name=libubsan.so)
export LD_PRELOAD="$ASAN_LIB $UBSAN_LIB"
# reports go to this run's own directory: concurrent runs neither mix nor delete them
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:log_path=$WORK/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$WORK/ubsan
export PYTHONMALLOC=malloc
export PYTHONPATH="$WORK/src"
export TRUEBLEU_SHARED="${TRUEBLEU_SHARED:-$(dirname "$REPO")/shared}"  # the WMT21 tests
export HYPOTHESIS_STORAGE_DIRECTORY="$WORK/.hypothesis"

"$PY" -c 'import truebleu._native_core as c, sys; print("sanitized core:", c.__file__)'
report() { cat "$WORK"/asan.* "$WORK"/ubsan.* 2>/dev/null || true; }
trap 'report; rm -rf "$WORK"' EXIT
FAILED=()
step() {  # step NAME COMMAND...: run it, remember a failure, go on
    local name=$1
    shift
    echo "== $name"
    "$@" || FAILED+=("$name")
}
# SANITIZE_TESTS replaces the list of test files (e.g. a quick run on the changed code)
# shellcheck disable=SC2086
step "native tests" "$PY" -m pytest -q -p no:cacheprovider ${SANITIZE_TESTS:-tests/tokenizers/test_native_tokenize.py \
    tests/metrics/bleu/test_native_stats.py tests/metrics/bleu/test_native_batch.py tests/metrics/bleu/test_native_wmt21.py \
    tests/native/test_native_interrupt.py tests/metrics/chrf/test_chrf_oracle.py tests/metrics/chrf/test_chrf_batch.py \
    tests/metrics/chrf/test_chrf_matrix.py tests/metrics/bleu/test_native_reference_groups.py \
    tests/significance/test_significance_native.py tests/significance/test_significance_native_draws.py \
    tests/io/test_io_utf8_native.py \
    tests/tokenizers/test_native_utf8.py tests/tokenizers/test_native_one_char.py tests/tokenizers/test_native_intl_bytes.py \
    tests/metrics/bleu/test_native_matcher.py tests/metrics/bleu/test_corpus_totals.py tests/core/test_stats_sums.py \
    tests/metrics/bleu/test_tokenized_periods.py tests/native/test_native_runtime.py \
    tests/metrics/chrf/test_chrf_native.py tests/viewer/test_viewer_word_buckets.py \
    tests/viewer/test_viewer_compact.py tests/viewer/test_viewer_tokens.py}
if [ -n "${SANITIZE_TESTS:-}" ]; then
    if [ "$FUZZ_GIVEN" -eq 1 ]; then
        step "fuzz_native" "$PY" bench/fuzz_native.py -n "$FUZZ_N" --seed 7 --threads 2
        step "fuzz_ids" "$PY" bench/fuzz_ids.py -n "$FUZZ_N" --seed 7
        step "fuzz_chrf" "$PY" bench/fuzz_chrf.py -n "$((FUZZ_N / 5))" --seed 7 --threads 2
        step "fuzz_ter" "$PY" bench/fuzz_ter.py -n "$TER_FUZZ_N" --seed 7
    fi
    if [ ${#FAILED[@]} -ne 0 ]; then
        echo "sanitizer run: FAILED: ${FAILED[*]}"
        exit 1
    fi
    echo "sanitizer run (SANITIZE_TESTS): OK"
    exit 0
fi
step "fuzz_native" "$PY" bench/fuzz_native.py -n "$FUZZ_N" --seed 7 --threads 2
step "fuzz_ids" "$PY" bench/fuzz_ids.py -n "$FUZZ_N" --seed 7
step "fuzz_chrf" "$PY" bench/fuzz_chrf.py -n "$((FUZZ_N / 5))" --seed 7 --threads 2
step "fuzz_chrf small alphabet" "$PY" bench/fuzz_chrf.py -n "$((FUZZ_N / 5))" --seed 8 --threads 2 --alphabet small
# TER's core (_native/ter/): the native half of its tests, and its fuzz
step "TER tests" "$PY" -m pytest -q -p no:cacheprovider tests/metrics/ter/test_ter.py tests/metrics/ter/test_ter_wmt21.py \
    -k "native or surrogates"
step "TER tokens" "$PY" -m pytest -q -p no:cacheprovider tests/tokenizers/test_ter_tokenize_native.py \
    tests/metrics/ter/test_ter_native_tokens.py
# the dialects' core (_native/dialects/: mteval's token ids, n-gram table, NIST sums and exact sum), the
# core's tercom tokens for torchmetrics-ter, against their Python specifications
step "dialects" "$PY" -m pytest -q -p no:cacheprovider tests/dialects/test_dialect_core_paths.py \
    tests/dialects/test_torchmetrics_ter_tokens.py tests/dialects/test_mteval_core_ids.py \
    tests/dialects/test_exact_sum.py tests/dialects/test_mteval_large_table.py \
    -k "mteval or tokens or statistics or core_call or exact_sum or large"
step "fuzz_ter" "$PY" bench/fuzz_ter.py -n "$TER_FUZZ_N" --seed 7
step "fuzz_ter --text" "$PY" bench/fuzz_ter.py -n "$TER_FUZZ_N" --seed 7 --text
if [ ${#FAILED[@]} -ne 0 ]; then
    echo "sanitizer run: FAILED: ${FAILED[*]}"
    exit 1
fi
echo "sanitizer run: OK"
