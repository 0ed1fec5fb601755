#!/bin/sh
# Runs the test binaries and fuzz-corpus replays given by `make test`, from the repository root,
# and closes with the line "N passed, N failed" (one count per binary). Exit status 1 if any failed.
build=$1; shift
passed=0; failed=0; failures=""
run_one() {
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures="$failures $1"; fi
}
fuzzing=0
for t in "$@"; do
    if [ "$t" = "--" ]; then fuzzing=1; continue; fi
    if [ $fuzzing = 1 ]; then
        name=$(basename "$t" _replay); name=${name#fuzz_}
        run_one "$t" "fuzz/corpus/$name"
    else
        run_one "$t"
    fi
done
[ -n "$failures" ] && echo "FAILED:$failures"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
