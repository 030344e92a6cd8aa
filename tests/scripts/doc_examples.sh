#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every example in README.md and docs/ runs (issue 35): tests/docs/doc_examples.py extracts
# the fenced shell and C examples and runs them, each page in a directory of its own, against
# this build tree: its trev first on PATH, its library installed (`cmake --install`) into a
# temporary prefix that pkg-config and the dynamic loader find, `build` a link to the tree.
# Outputs tagged as such are compared; examples tagged skip are listed with their reason.
# tests/README.md, "Examples in the docs", has the tags.
set -euo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
S=$TREV_SOURCE_DIR
# The examples build programs as a user would, without a sanitizer's runtime, which a
# sanitizer tree's libtrev needs loaded first: they run in the normal tree.
if [ -n "$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$B/CMakeCache.txt")" ]; then
	echo "SKIP: a sanitizer tree (the examples run in the normal tree)"
	exit 77
fi
T=$(mktemp -d)
. "$S/tests/scripts/lib/install_manifest.sh"
manifest_keep "$B" "$T"
restore() {
	manifest_put_back
	rm -rf "$T"
}
trap restore EXIT

cmake --install "$B" --prefix "$T/prefix" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; echo "FAIL: cmake --install $B"; exit 1; }
libdir=$(dirname "$(find "$T/prefix" -name trev.pc | head -1)")
libdir=${libdir%/pkgconfig}
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$B/tools/trev:$PATH
mkdir "$T/work"
python3 "$S/tests/docs/doc_examples.py" "$S" "$T/work" "$@"
