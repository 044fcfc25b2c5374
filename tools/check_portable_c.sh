#!/usr/bin/env bash
# The C core compiles, without a warning, for the platforms it is built for besides this one:
# every .c file under src/truebleu/_native, `-std=c11 -Wall -Wextra -Wvla -Werror` (MSVC has no
# variable-length arrays; MinGW with -fsyntax-only, zig compiling to an object that is thrown
# away: its -fsyntax-only still asks for one), with
#
#   MinGW-w64 GCC  x86_64-w64-mingw32-gcc          (Debian: gcc-mingw-w64-x86-64-win32)
#   zig's clang    x86_64-windows-gnu, aarch64-linux-gnu, aarch64-macos   (PyPI: ziglang)
#
# each twice: as the compiler builds it, and with TB_PORTABLE_FALLBACKS (every standard-C
# fallback of runtime/portable.h; for Windows also MSVC's Interlocked atomics, so that MinGW and
# zig compile the paths MSVC takes). The fallback pass adds -Wpedantic: those paths are ISO C11.
#
# Which files need Python.h is read from their includes:
#   - pure C (no Python.h): every target;
#   - kernels that include Python.h only for Py_UNICODE_ISSPACE (the tokenizers of text/ and
#     chrF's counting, found by the classification below, not by name): every
#     target, against a stand-in Python.h that declares just that (and Py_UCS4);
#   - bindings (the rest of the C API): zig for aarch64-linux-gnu with this machine's Python
#     headers (an LP64 Linux pyconfig.h fits it); not for Windows or macOS, whose pyconfig.h
#     differs.
#
#   bash tools/check_portable_c.sh
#
# It installs nothing: MinGW from PATH, zig as `$PYTHON -m ziglang` (PYTHON: python3 unless set;
# the Python headers are that interpreter's). A missing compiler is a failure. Exit status: 0
# when every compile was clean, else 1.
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
native=src/truebleu/_native
flags=(-std=c11 -Wall -Wextra -Wvla -Werror -I"$native" -I"$native/tables")
targets=(x86_64-windows-gnu aarch64-linux-gnu aarch64-macos)

if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
    echo "check_portable_c: x86_64-w64-mingw32-gcc not found (apt-get install gcc-mingw-w64-x86-64-win32)"
    exit 1
fi
if ! "$PYTHON" -m ziglang version >/dev/null 2>&1; then
    echo "check_portable_c: '$PYTHON -m ziglang' does not run (pip install ziglang; set PYTHON)"
    exit 1
fi
echo "check_portable_c: $(x86_64-w64-mingw32-gcc --version | head -1); zig $("$PYTHON" -m ziglang version)"

# the files by what they need of Python.h: pure, kernel (Py_UNICODE_ISSPACE alone), binding
mapfile -t classified < <("$PYTHON" - "$native" <<'EOF'
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
light = {"Python", "Py_UNICODE_ISSPACE", "Py_UCS4", "PY_SSIZE_T_CLEAN"}  # (Python: of Python.h)


def closure(path, seen):
    if path in seen or not path.is_file():
        return seen
    seen.add(path)
    for name in re.findall(r'^#include "([^"]+)"', path.read_text(), re.M):
        for base in (root, root / "tables", path.parent):
            if (base / name).is_file():
                closure(base / name, seen)
                break
    return seen


for c in sorted(root.rglob("*.c")):
    files = closure(c, set())
    text = "\n".join(f.read_text() for f in files)
    if not re.search(r"#include <Python\.h>", text):
        kind = "pure"
    else:  # identifiers of the C API, outside comments
        code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        used = set(re.findall(r"\b(Py[A-Za-z_0-9]*|_Py[A-Za-z_0-9]*)\b", code))
        kind = "kernel" if used <= light else "binding"
    print(kind, c)
EOF
)
[ ${#classified[@]} -gt 0 ] || { echo "check_portable_c: no C files found"; exit 1; }

stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
cat > "$stub/Python.h" <<'EOF'
/* check_portable_c.sh's stand-in: the part of Python.h the text kernels use */
#include <stdint.h>
typedef uint32_t Py_UCS4;
int tb_stand_in_isspace(Py_UCS4 c);
#define Py_UNICODE_ISSPACE(c) tb_stand_in_isspace((Py_UCS4)(c))
EOF
pyinc=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')

checked=0
failed=0
# compile LABEL FILE ARGS...: one compile, its output shown when it is not clean
compile() {
    local label=$1 file=$2
    shift 2
    local out
    if out=$("$@" "$file" 2>&1) && [ -z "$out" ]; then
        checked=$((checked + 1))
    else
        failed=$((failed + 1))
        echo "FAILED  $label  $file"
        echo "$out" | head -30
    fi
}

declare -A counts
for entry in "${classified[@]}"; do
    kind=${entry%% *}
    file=${entry#* }
    counts[$kind]=$((${counts[$kind]:-0} + 1))
    extra=()
    [ "$kind" = kernel ] && extra=(-I"$stub")
    for mode in default fallbacks; do
        mflags=()
        [ "$mode" = fallbacks ] && mflags=(-DTB_PORTABLE_FALLBACKS -Wpedantic)
        if [ "$kind" = binding ]; then
            compile "zig aarch64-linux-gnu (Python headers) $mode" "$file" \
                "$PYTHON" -m ziglang cc -target aarch64-linux-gnu -c -o "$stub/out.o" "${flags[@]}" "${mflags[@]}" -I"$pyinc"
            continue
        fi
        compile "mingw x86_64-w64-mingw32 $mode" "$file" \
            x86_64-w64-mingw32-gcc -fsyntax-only "${flags[@]}" "${mflags[@]}" "${extra[@]}"
        for t in "${targets[@]}"; do
            compile "zig $t $mode" "$file" \
                "$PYTHON" -m ziglang cc -target "$t" -c -o "$stub/out.o" "${flags[@]}" "${mflags[@]}" "${extra[@]}"
        done
    done
done

echo "check_portable_c: ${counts[pure]:-0} pure C files and ${counts[kernel]:-0} kernels" \
     "(Python.h for Py_UNICODE_ISSPACE only, against a stand-in) on mingw x86_64 and" \
     "zig ${targets[*]}; ${counts[binding]:-0} binding files on zig aarch64-linux-gnu with" \
     "the Python headers of $("$PYTHON" -c 'import sys; print(sys.version.split()[0])');" \
     "each as built and with TB_PORTABLE_FALLBACKS (+ -Wpedantic)"
echo "check_portable_c: $checked compiles clean, $failed with warnings or errors"
[ "$failed" -eq 0 ]
