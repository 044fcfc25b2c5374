#!/usr/bin/env bash
# Run sacreBLEU 2.6.0's own test files against truebleu.
#
# The tests are not in sacreBLEU's wheel, and truebleu does not copy them: this
# script downloads sacreBLEU's sdist from PyPI (so it needs PyPI access), unpacks
# it into a temporary folder, rewrites the import lines only
#     import sacrebleu            -> import truebleu as sacrebleu
#     import sacrebleu.x as y     -> import truebleu.x as y
#     from sacrebleu... import    -> from truebleu... import
# and runs the tests with pytest. Extra arguments go to pytest, e.g.
#     tools/run_sacrebleu_tests.sh -k "not test_dataset and not test_api_get"   # offline
# Some tests download test sets (test_dataset.py, test_api.py's get_source /
# get_reference): they need the internet and fill $SACREBLEU (else ~/.sacrebleu).
set -euo pipefail
PYTHON=${PYTHON:-python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m pip download --quiet --no-binary :all: --no-deps --dest "$work" sacrebleu==2.6.0
tar xzf "$work"/sacrebleu-2.6.0.tar.gz -C "$work"
tests="$work/sacrebleu-2.6.0/test"
sed -i -E \
    -e 's/^([[:space:]]*)import sacrebleu$/\1import truebleu as sacrebleu/' \
    -e 's/^([[:space:]]*)import sacrebleu(\.[A-Za-z_.]+) as /\1import truebleu\2 as /' \
    -e 's/^([[:space:]]*)from sacrebleu([. ])/\1from truebleu\2/' \
    "$tests"/*.py
if grep -nE '^[[:space:]]*(import|from) sacrebleu' "$tests"/*.py; then
    echo "run_sacrebleu_tests.sh: an import line was not rewritten (above)" >&2
    exit 2
fi
cd "$work/sacrebleu-2.6.0"
"$PYTHON" -m pytest -q -p no:cacheprovider -o addopts= -rfE --continue-on-collection-errors test "$@"
