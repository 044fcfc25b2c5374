#!/usr/bin/env bash
# The supported Pythons besides the one that runs the whole suite: for each, a fresh virtual
# environment, truebleu installed as the README says (`pip install '.[test]'`, building the C
# core for that interpreter), then the tests whose results can depend on the interpreter:
# the C core against the pure-Python specification (C API, threads), every tokenizer against
# sacreBLEU (each Python ships its own Unicode database), and the float results (chrF, TER and
# the bootstrap sum floats, and Python 3.12 changed how sum() adds them) against sacreBLEU.
#
#   bash tools/ci_other_pythons.sh [3.10 3.12 3.13]
#
# An interpreter is python3.X on PATH, else under ~/.pyenv/versions (the first that runs). In CI
# (CI=true) a missing one is a failure; elsewhere it is reported and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(3.10 3.12 3.13)

tests=(
    tests/metrics/bleu/test_native_stats.py tests/tokenizers/test_native_tokenize.py
    tests/native/test_native_interrupt.py tests/native/test_native_runtime.py  # the C API's module state
    tests/native/test_native_leak.py tests/metrics/test_metric_contract.py
    tests/metrics/bleu/test_api_oracle.py tests/tokenizers/test_tokenizers.py
    tests/metrics/chrf/test_chrf_oracle.py tests/metrics/chrf/test_chrf_native.py tests/metrics/ter/test_ter.py
    tests/significance/test_significance_sacrebleu.py
    tests/significance/test_significance_native.py  # float order: 3.12+ sum() compensates
    tests/io/test_io_utf8_native.py  # the C reader follows each CPython's UTF-8 decoder
    tests/hostile/test_hostile_downloads.py  # each CPython's tarfile/zipfile/http.client
    tests/test_readme.py
    # argparse's internals and typing's stand-ins, which each CPython may change
    tests/cli/test_command_parser.py tests/core/test_typing_stubs.py tests/cli/test_import_cost.py
    # how a Ctrl-C is caught and how `python -m` ends after it depend on each CPython's internals
    "tests/hostile/test_hostile_interrupt.py::test_status_130_under_python_m_after_an_interrupt_in_code_from_a_string"
    "tests/hostile/test_hostile_interrupt.py::test_an_interrupt_python_cannot_raise_in_a_callback_still_stops_the_command"
    # two WMT21 language pairs through the API (13a, and a Brahmic script)
    "tests/metrics/bleu/test_wmt21.py::test_every_system_matches_sacrebleu[newstest2021.en-de]"
    "tests/metrics/bleu/test_wmt21.py::test_every_system_matches_sacrebleu[florestest2021.bn-hi]"
)

find_python() {  # the first candidate that runs and is that version (pyenv shims may not)
    local version="$1" candidate
    for candidate in "$(command -v "python$version" || true)" "$HOME"/.pyenv/versions/"$version".*/bin/python; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        if "$candidate" -c "import sys; sys.exit(f'{sys.version_info[0]}.{sys.version_info[1]}' != '$version')" \
                >/dev/null 2>&1; then
            echo "$candidate"; return
        fi
    done
    return 1
}

status=0
for version in "${versions[@]}"; do
    if ! python="$(find_python "$version")"; then
        if [ "${CI:-}" = "true" ]; then
            echo "Python $version: not found (PATH, ~/.pyenv/versions)" >&2; status=1
        else
            echo "Python $version: not found, skipped" >&2
        fi
        continue
    fi
    start=$SECONDS
    venv="$(mktemp -d)/venv-$version"
    echo "=== Python $version ($python): install"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "$repo[test]"
    "$venv/bin/truebleu" --version
    echo "=== Python $version: tests"
    # from a scratch folder, so the installed package (not ./src) is what is tested
    if (cd "$(dirname "$venv")" && TRUEBLEU_NO_SKIP="${TRUEBLEU_NO_SKIP:-1}" \
            "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$repo" \
            "${tests[@]/#/$repo/}"); then
        echo "=== Python $version: passed in $((SECONDS - start)) s"
    else
        echo "=== Python $version: FAILED" >&2; status=1
    fi
    rm -rf "$(dirname "$venv")"
done
exit $status
