#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# extract.sh DIR [MEMBER...]: install Debian's linux-source-6.1 if it is missing, and extract
# from its tarball only what the kernel-header corpus test reads, into DIR/linux (kept out of
# the project: the kernel's files are GPL):
#   include/trace/events/*.h   the event headers (and the helpers they include: mmflags.h ...)
#   include/trace/stages/*.h   the kernel's own stage macros, for the reference formats
#   samples/trace_events/trace-events-sample.h
# and the MEMBERs, paths or wildcards under the tree's top (tests/ftracetest/ftracetest.sh
# adds tools/testing/selftests/ftrace/*).
# The tarball is decompressed once per version (about 30 s here); a stamp file names the
# tarball it came from, so a second run with the same package reuses the files.
set -euo pipefail

dest=${1:?usage: extract.sh DIR [MEMBER...]}
shift
pkg=linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz

if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep >/dev/null 'install ok installed'; then
	sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "extract.sh: installing $pkg" >&2
	apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
	"${apt[@]}" update -qq >&2
	"${apt[@]}" install -y -qq --no-install-recommends "$pkg" >&2
fi
[ -f "$tarball" ] || { echo "extract.sh: $tarball is missing" >&2; exit 1; }

stamp="$dest/linux/.extracted"
want="$(stat -c '%s %Y' "$tarball") $(dpkg-query -W -f='${Version}' "$pkg") $*"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

rm -rf "$dest/linux" "$dest/linux.tmp"
mkdir -p "$dest/linux.tmp"
top=linux-source-6.1
extra=()
for m in "$@"; do
	extra+=("$top/$m")
done
tar -xJf "$tarball" -C "$dest/linux.tmp" --strip-components=1 --wildcards \
	"$top/include/trace/events/*.h" "$top/include/trace/stages/*.h" \
	"$top/samples/trace_events/trace-events-sample.h" "${extra[@]}"
echo "$want" >"$dest/linux.tmp/.extracted"
mv "$dest/linux.tmp" "$dest/linux"
