#!/bin/sh
# exports.sh: libhyrax.so exports exactly the names include/hyrax.h marks HX_API (the library is
# built with -fvisibility=hidden), and its soname carries the major version of HX_VERSION_STRING.
# Run by `make test` from the repository root with HX_BUILD (the build folder) and HX_NM set.
lib=${HX_BUILD:-build}/libhyrax.so
nm=${HX_NM:-nm}
[ -f "$lib" ] || { echo "exports: $lib is missing"; exit 1; }
want=$(sed -n 's/^HX_API .*[ *]\(hx_[a-z0-9_]*\)[[(].*/\1/p' include/hyrax.h | sort -u)
# (a sanitizer build adds an __odr_asan.NAME indicator beside each exported variable: not a name of ours)
have=$("$nm" -D --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TDRB]$/ && $3 !~ /^__odr_asan/ {print $3}' | sort -u)
bad=0
for s in $(echo "$have" | grep -vxF "$want"); do echo "exports: $lib exports $s, which hyrax.h does not declare"; bad=$((bad + 1)); done
for s in $(echo "$want" | grep -vxF "$have"); do echo "exports: hyrax.h declares $s, which $lib does not export"; bad=$((bad + 1)); done
major=$(sed -n 's/^#define HX_VERSION_MAJOR \([0-9]*\).*/\1/p' include/hyrax.h)
if ! strings "$lib" | grep -qx "libhyrax.so.$major"; then
    echo "exports: $lib has no soname libhyrax.so.$major"; bad=$((bad + 1))
fi
echo "exports: $(echo "$want" | wc -l) names declared, $(echo "$have" | wc -l) exported, $bad problems"
[ "$bad" = 0 ]
