#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# prepare.sh DIR: from the kernel files extract.sh left in DIR/linux, make what compiling them
# with trev needs (kernel_headers.sh, tests/ftracetest/ftracetest.sh):
#   DIR/trev/    trev's copies of the event headers: the two include lines changed, nothing else
#   DIR/stubs/   an empty stand-in for every kernel header they include that we have none for
set -euo pipefail

W=${1:?usage: prepare.sh DIR}

rm -rf "$W/trev"
mkdir -p "$W/trev/include/trace/events" "$W/trev/samples/trace_events"
for f in "$W"/linux/include/trace/events/*.h "$W"/linux/samples/trace_events/*.h; do
	rel=${f#"$W/linux/"}
	sed -e 's|^#include <linux/tracepoint.h>|#include <trev/tracepoint.h>|' \
	    -e 's|^#include <trace/define_trace.h>|#include <trev/define_trace.h>|' \
	    "$f" >"$W/trev/$rel"
done
# Includes of kernel headers we have no stand-in for resolve to empty files (searched after
# the stand-ins, before the system). While kernel_types.h includes the system's headers they
# pass through to the system's file of that name, if any (glibc's <errno.h> includes
# <linux/errno.h>); after it (KH_STANDIN_READY) they are empty.
rm -rf "$W/stubs"
mkdir -p "$W/stubs"
sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/\1/p' \
	"$W"/linux/include/trace/events/*.h "$W"/linux/samples/trace_events/*.h | sort -u |
while read -r h; do
	mkdir -p "$W/stubs/$(dirname "$h")"
	printf '#if !defined(KH_STANDIN_READY) && __has_include_next(<%s>)\n#include_next <%s>\n#endif\n' \
		"$h" "$h" >"$W/stubs/$h"
done
