#!/usr/bin/env bash
# Build scrab's C extensions with AddressSanitizer and UndefinedBehaviorSanitizer and run the
# tests that drive them; then rebuild them without sanitizers (also when a step fails) and
# check them for leaks under valgrind.
#
#   tools/sanitize.sh                      # the default tests, below
#   tools/sanitize.sh tests/lexicon -k foo # or any pytest arguments
#
# Every extension declared in pyproject.toml is built (setuptools build_ext --inplace), so a
# new extension joins by adding its tests to DEFAULT_TESTS and, for the leak check, a few
# calls to LEAK_DRIVER. Needs gcc (or CC=clang) with the sanitizer runtimes, and valgrind.
# Python itself is not instrumented, so the ASan runtime is preloaded, and ASan's leak
# report is off (the interpreter keeps memory at exit by design): valgrind does that part.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
CC=${CC:-gcc}
export CC
DEFAULT_TESTS=(tests/lexicon/test_builders.py tests/lexicon/test_build.py)

build_extensions() {
    "$PYTHON" -c "import setuptools; setuptools.setup()" -q build_ext --inplace --force 2>&1 \
        | grep -v -e "is still \*experimental\*" -e "config = read_configuration" || true
}

rebuild_plain() {
    echo "== rebuilding the extensions without sanitizers"
    # unset, not empty: setuptools takes an empty CFLAGS as "no flags" and drops its -O3
    (unset CFLAGS LDFLAGS && build_extensions)
}
trap rebuild_plain EXIT

echo "== building the extensions with -fsanitize=address,undefined"
CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
    LDFLAGS="-fsanitize=address,undefined" build_extensions

echo "== running the tests under the sanitizers"
if [ $# -eq 0 ]; then
    set -- "${DEFAULT_TESTS[@]}"
fi
LD_PRELOAD="$($CC -print-file-name=libasan.so)" \
    ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    PYTHONPATH="$PWD" SCRAB_CACHE_DIR="$(mktemp -d)" \
    "$PYTHON" -m pytest -p no:cacheprovider -n 0 -q --capture=sys "$@"  # sys: the sanitizers' reports reach the terminal

trap - EXIT
rebuild_plain

echo "== checking the extensions for leaks under valgrind"
LEAK_DRIVER=$(mktemp --suffix=.py)
cat >"$LEAK_DRIVER" <<'PY'
# Every way in and out of each extension, several times: success, each refusal, bad input.
from solver_cli.lexicon import _build_c

words = "\n".join(sorted({a + b + c for a in "ABCDE" for b in "AEIOU" for c in "RST"} | {"QI", "ZA"})).encode()
for _ in range(5):
    _build_c.build(words, 10**6, 10**6)
    for entries, prefixes in ((50, 10**6), (10**6, 20)):
        try:
            _build_c.build(words, entries, prefixes)
        except _build_c.LimitError:
            pass
    for bad in (b"AB\nAA", b"AB\n", b"Ab"):
        try:
            _build_c.build(bad, 100, 100)
        except ValueError:
            pass
PY
LOG=$(mktemp)
PYTHONMALLOC=malloc PYTHONPATH="$PWD" valgrind --leak-check=full --show-leak-kinds=definite \
    --log-file="$LOG" "$PYTHON" "$LEAK_DRIVER"
# The interpreter's own allocations are not ours: count only leaks allocated in an extension.
OURS=$(awk '/definitely lost in/ {block=$0; inside=1; next} inside && /^==[0-9]+== *$/ {inside=0} inside && /_c(\.c:|\.cpython)/ {print block; inside=0}' "$LOG")
rm -f "$LEAK_DRIVER"
if [ -n "$OURS" ]; then
    echo "leaks in the extensions (full log: $LOG):"
    echo "$OURS"
    exit 1
fi
echo "no leak in the extensions (valgrind log: $LOG)"
echo "== all sanitizer checks passed"
