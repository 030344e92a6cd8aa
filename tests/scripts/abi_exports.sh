#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libtrev.so exports exactly what tests/abi/exports.txt lists (docs/abi.md): the public API of
# include/trev/ and the libc calls the library interposes, in the version node of
# src/libtrev.map; every exported trev_ name is declared in a public header, and none of the
# recorder's protocol (src/ring_buffer/rb_shm.h) is exported.
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
S=$TREV_SOURCE_DIR
lib=$B/libtrev.so
list=$S/tests/abi/exports.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
# AddressSanitizer exports an ODR indicator (__odr_asan.NAME) beside each exported variable.
nm -D --defined-only "$lib" | awk '$NF !~ /^__odr_asan[.]/ {print $NF}' | sort >"$T/got" ||
	{ echo "FAIL: nm -D $lib"; exit 1; }
grep -v '^#' "$list" | sed '/^$/d' | sort >"$T/want"
if ! diff -u "$T/want" "$T/got" >"$T/diff"; then
	echo "FAIL: libtrev.so's exports differ from tests/abi/exports.txt (- listed, + exported):"
	sed -n '3,$p' "$T/diff" | grep '^[-+]'
	echo "An intended change: update the list with"
	echo "  nm -D --defined-only build/libtrev.so | awk '{print \$NF}' | sort  (below its comment)"
	echo "and say why in docs/abi.md; an unintended one: the symbol is missing TREV_API or"
	echo "src/libtrev.map lets it out."
	fail=1
fi

# Each exported trev_ call is declared in a public header.
for sym in $(sed -n 's/^\(trev_[A-Za-z0-9_]*\)@.*/\1/p' "$T/got"); do
	grep -rqw "$sym" "$S/include/trev" || { echo "FAIL: $sym is exported but no header of include/trev/ declares it"; fail=1; }
done

# The recorder's protocol: the library's socket and the trev command only.
for sym in $(sed -n 's/^[a-z].*[ *]\(trev_rb_[a-z_]*\)(.*/\1/p' "$S/src/ring_buffer/rb_shm.h" | sort -u); do
	grep -q "^$sym@" "$T/got" && { echo "FAIL: $sym (src/ring_buffer/rb_shm.h) is exported"; fail=1; }
	grep -qw "$sym" "$S/include/trev/ring_buffer.h" && { echo "FAIL: $sym is declared in the public ring_buffer.h"; fail=1; }
done

[ "$fail" -eq 0 ] && echo "ok: libtrev.so exports the $(wc -l <"$T/got") symbols of tests/abi/exports.txt"
exit "$fail"
