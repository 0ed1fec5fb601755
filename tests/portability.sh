#!/bin/sh
# portability.sh: two rules that keep hyrax building beyond x86-64 Linux. (1) The Makefile picks
# instruction-set files by the compiler's target (`$(CC) -dumpmachine`): x86-64 gets x86/ and the
# SSE4.2 CRC, aarch64 gets arm/ and the ARMv8 CRC, any other target neither; checked with a stand-in
# compiler that only answers -dumpmachine, under `make -n`, so no cross compiler is needed.
# (2) Operating-system specific calls live in src/base/platform.[ch] only. Run by `make test` from the
# repository root; prints one line per violation and a closing tally.
bad=0
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat > "$fake/cc" <<'CC'
#!/bin/sh
case "$1" in
-dumpmachine) echo "$HX_FAKE_TARGET" ;;
-print-prog-name=*) echo "${1#-print-prog-name=}" ;;
*) exit 1 ;;
esac
CC
chmod +x "$fake/cc"

# Lines of `make -n` for a whole library build for target $1.
commands() {
    HX_FAKE_TARGET=$1 make -s -n -B CC="$fake/cc" BUILD="$fake/build" "$fake/build/libhyrax.a" 2>&1
}
# want TARGET PATTERN DESCRIPTION: some compile command matches PATTERN.
want() {
    if ! commands "$1" | grep -q -- "$2"; then echo "portability: $1 build lacks $3"; bad=$((bad + 1)); fi
}
# refuse TARGET PATTERN DESCRIPTION: no compile command matches PATTERN.
refuse() {
    if commands "$1" | grep -q -- "$2"; then echo "portability: $1 build has $3"; bad=$((bad + 1)); fi
}
for t in x86_64-linux-gnu x86_64-pc-linux-gnu; do
    want "$t" '-mavx2 -mfma -mf16c -c src/model/x86/kernels_avx2.c' "kernels_avx2.c with its flags"
    want "$t" '-mavx512f.* -c src/model/x86/kernels_avx512.c' "kernels_avx512.c with its flags"
    want "$t" '-msse4.2 -c src/base/crc32c_sse42.c' "crc32c_sse42.c with its flags"
    want "$t" '-mamx-tile -mamx-int8 -c src/model/x86/kernels_int8_amx.c' "kernels_int8_amx.c with its flags"
    refuse "$t" 'src/model/arm/\|_neon\.c\|_armcrc\.c\|-march=armv8' "an ARM file or flag"
done
for t in aarch64-linux-gnu arm64-apple-darwin23.0.0; do
    want "$t" ' -c src/model/arm/kernels_neon.c' "kernels_neon.c"
    want "$t" '-march=armv8-a+crc -c src/base/crc32c_armcrc.c' "crc32c_armcrc.c with its flags"
    refuse "$t" 'src/model/x86/\|_sse42\.c\|_avx\|-mavx\|-msse\|-mf16c' "an x86 file or flag"
done
for t in riscv64-linux-gnu powerpc64le-linux-gnu; do
    want "$t" ' -c src/model/kernels_scalar.c' "the scalar kernels"
    refuse "$t" 'src/model/x86/\|src/model/arm/\|_sse42\.c\|_armcrc\.c\|-mavx\|-msse\|-march' \
        "an instruction-set file or flag"
done

# (2) calls and fields that differ between Linux and other POSIX systems
os_specific='madvise\|getauxval\|sys/auxv\.h\|asm/hwcap\.h\|/proc/self\|fdatasync\|st_mtim\b\|_SC_NPROCESSORS'
os_specific="$os_specific\\|arch_prctl"
for f in $(grep -rl -- "$os_specific" src | grep -v '^src/base/platform\.[ch]$'); do
    grep -n -- "$os_specific" "$f" | sed "s|^|portability: $f:|; s|$| (belongs in src/base/platform.c)|"
    bad=$((bad + 1))
done
echo "portability: $bad problems"
[ "$bad" = 0 ]
