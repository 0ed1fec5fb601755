#!/bin/sh
# exports.sh: libhyrax.so exports exactly the names include/hyrax.h marks HX_API (the library is
# built with -fvisibility=hidden), every hx_ name libhyrax.a defines is one of them (internal names
# are hxi_ or a module's prefix, so a reader tells them apart), and the soname carries the major
# version of HX_VERSION_STRING.
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
# Public and internal names are told apart by their prefix: every global name of libhyrax.a that
# begins with hx_ is one of hyrax.h's (internal ones begin hxi_ or a module's own prefix).
arch=${HX_BUILD:-build}/libhyrax.a
if [ -f "$arch" ]; then
    for s in $("$nm" -g --defined-only "$arch" 2>/dev/null | awk 'NF == 3 && $3 ~ /^hx_/ {print $3}' | sort -u | grep -vxF "$want"); do
        echo "exports: $arch defines $s, an hx_ name hyrax.h does not declare (internal names begin hxi_)"; bad=$((bad + 1))
    done
fi
major=$(sed -n 's/^#define HX_VERSION_MAJOR \([0-9]*\).*/\1/p' include/hyrax.h)
if ! strings "$lib" | grep -qx "libhyrax.so.$major"; then
    echo "exports: $lib has no soname libhyrax.so.$major"; bad=$((bad + 1))
fi
echo "exports: $(echo "$want" | wc -l) names declared, $(echo "$have" | wc -l) exported, $bad problems"
[ "$bad" = 0 ]
