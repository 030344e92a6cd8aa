#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# KernelShark opens our trace.dat files (v6 and v7, recorded by tests/tracedat/dat_record.c,
# a function_graph recording of tests/ftrace/ft_app by trev record, a recording of a run
# of three processes, a buffer each, and the file trace-cmd listen wrote from trev record -N) on a virtual X server: its main window is mapped with the file's name in the title, a
# screenshot of it is not blank, it is still running once it has gone idle after drawing, and
# it printed no error about the file. Exits 77 (skipped) when KernelShark, Xvfb or the X tools are missing
# (apt-get install kernelshark xvfb x11-apps x11-utils).
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR/tests
# wait_for, asleep (its fail is replaced below)
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
skip() {
	echo "SKIP: $*"
	exit 77
}
# KernelShark is not ours to sanitize, and the run takes about 10 s: the normal tree only.
sanitize=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$TREV_BUILD_DIR/CMakeCache.txt" 2>/dev/null)
[ -z "$sanitize" ] || skip "a $sanitize sanitizer tree: KernelShark runs in the normal tree"
for tool in kernelshark Xvfb xwininfo xwd python3; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -x "$B/dat_record" ] || skip "dat_record was not built (libtraceevent/libtracecmd missing)"
# As root KernelShark first shows a modal "running with Root privileges" dialog, and no main
# window until someone closes it: run it as nobody.
as_user=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "running as root, and setpriv is missing"
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

T=$(mktemp -d)
xvfb=""
ks=""
cleanup() {
	exec 2>/dev/null
	[ -z "$ks" ] || { kill -KILL "$ks" && wait "$ks"; }
	stop_xvfb
	stop_listeners
	rm -rf "$T"
}
# Xvfb ends on TERM with its lock file and socket removed; KILL would leave them behind.
stop_xvfb() {
	[ -n "$xvfb" ] || return 0
	kill -TERM "$xvfb" 2>/dev/null && wait "$xvfb" 2>/dev/null
	xvfb=""
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	[ -f "$T/ks.log" ] && { echo "---- kernelshark output:" >&2; cat "$T/ks.log" >&2; }
	exit 1
}

chmod 755 "$T"
"$B/dat_record" "$T" normal >/dev/null || fail "dat_record failed"
# A function_graph recording (docs/function-tracer.md): funcgraph_entry/exit records.
(cd "$T" && "$TREV_BUILD_DIR/tools/trev/trev" record -t function_graph -o "$T/fg.dat" -- \
	"$B/ft_app") >"$T/rec.log" 2>&1 || fail "trev record -t function_graph: $(cat "$T/rec.log")"
# A session of three processes (docs/sessions.md): one buffer each, KernelShark a stream each.
(cd "$T" && "$TREV_BUILD_DIR/tools/trev/trev" record -e trev_test:tt_ints -o "$T/run.dat" -- \
	"$B/run_app" spawn 2 50) >"$T/rec.log" 2>&1 || fail "trev record of a run: $(cat "$T/rec.log")"
# Each process named in a PROCMAPS option (docs/formats.md), which KernelShark must take too.
if command -v trace-cmd >/dev/null; then
	[ "$(trace-cmd dump --options "$T/run.dat" 2>/dev/null | grep -c 'Option PROCMAPS')" = 3 ] ||
		fail "run.dat: not 3 PROCMAPS options"
fi
grep -q 'version 7, 3 processes' "$T/rec.log" || fail "the run is not 3 processes: $(cat "$T/rec.log")"
# Sent to trace-cmd listen (trev record -N, docs/streaming.md): the listener's file.
if command -v trace-cmd >/dev/null && command -v ss >/dev/null; then
	start_listener "$T/ldir"
	(cd "$T" && "$TREV_BUILD_DIR/tools/trev/trev" record -e trev_test:tt_ints \
		-N "127.0.0.1:$lport" -- "$B/rec_app" 500 2) >"$T/rec.log" 2>&1 ||
		fail "trev record -N: $(cat "$T/rec.log")"
	stop_listeners
	cp "$T"/ldir/trace.*.dat "$T/net.dat" || fail "no listener file: $(ls "$T/ldir")"
	files="v6 v7 fg run net"
else
	files="v6 v7 fg run"
	echo "trace-cmd listen or ss missing: the listener's file is not opened"
fi
chmod 644 "$T"/*.dat
mkdir -m 700 "$T/home"
[ ${#as_user[@]} = 0 ] || chown 65534:65534 "$T/home"

# A display of its own for each file: Xvfb picks a free number and writes it to fd 3.
start_xvfb() {
	rm -f "$T/display"
	Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp -ac 3>"$T/display" \
		>"$T/xvfb.log" 2>&1 &
	xvfb=$!
	wait_for "[ -s '$T/display' ] || pid_gone $xvfb" "Xvfb started or ended"
	[ -s "$T/display" ] || skip "Xvfb did not start: $(cat "$T/xvfb.log")"
	export DISPLAY=":$(head -1 "$T/display")"
}

# shot_drawn XWD GEOMETRY: the window's part of the screenshot has many colours (text, graph),
# not a blank frame.
shot_drawn() {
	python3 - "$1" "$2" <<'EOF'
import re, struct, sys
d = open(sys.argv[1], "rb").read()
h = struct.unpack(">25I", d[:100])
hsize, width, height, bpl, ncolors = h[0], h[4], h[5], h[12], h[19]
w, hh, x0, y0 = map(int, re.match(r"(\d+)x(\d+)\+(-?\d+)\+(-?\d+)", sys.argv[2]).groups())
bpp = bpl // width	# bytes per pixel (24-bit depth is stored in 4)
assert bpp in (3, 4), "%d bytes per pixel" % bpp
assert w >= 200 and hh >= 100, "window %dx%d is too small" % (w, hh)
off = hsize + ncolors * 12
colours = set()
for y in range(max(y0, 0), min(y0 + hh, height)):
	line = d[off + y * bpl: off + y * bpl + width * bpp]
	for x in range(max(x0, 0), min(x0 + w, width)):
		colours.add(line[x * bpp: x * bpp + 3])
print("%dx%d window, %d colours" % (w, hh, len(colours)))
assert len(colours) >= 16, "only %d colours" % len(colours)
EOF
}

alive() { ! pid_gone "$ks" && ! pid_gone "$xvfb"; }
window_geometry() {
	geom=$(xwininfo -root -tree 2>/dev/null |
		awk -v t="\"Kernel Shark ($dat)\":" 'index($0, t) { print $(NF - 1); exit }')
	[ -n "$geom" ]
}
drawn() {	# a screenshot every 0.5 s at most: each one is a 3 MB file scanned in python
	xwd -root -silent >"$T/shot.xwd" || fail "$v: xwd failed"
	shot_drawn "$T/shot.xwd" "$geom" >"$T/shot.txt" 2>&1 && return 0
	sleep 0.5
	return 1
}

for v in $files; do
	dat="$T/$v.dat"
	start_xvfb
	HOME="$T/home" XDG_RUNTIME_DIR="$T/home" "${as_user[@]}" kernelshark "$dat" \
		>"$T/ks.log" 2>&1 &
	ks=$!
	# The main window, mapped, titled with the file: "Kernel Shark (FILE)": WxH+X+Y.
	geom=""
	wait_for 'window_geometry || ! alive' "$v: KernelShark's window came"
	alive || fail "$v: kernelshark or Xvfb on $DISPLAY ended before the window came: $(cat "$T/xvfb.log")"
	# It loads and draws after mapping the window: on a loaded machine that takes a while,
	# so the screenshot is taken again until it shows a drawn window.
	wait_for 'drawn || ! alive' "$v: the screenshot shows a drawn window"
	alive || fail "$v: kernelshark died after opening its window"
	cat "$T/shot.txt"
	# Drawn, it goes idle (asleep, waiting for X events) and must still be there.
	wait_for 'asleep $ks || ! alive' "$v: kernelshark went idle after drawing"
	alive || fail "$v: kernelshark died after the screenshot"
	# Plugins for events the file does not have say they "failed to initialize": not errors.
	if grep -iE 'error|fail|cannot|corrupt|invalid|unknown|segmentation' "$T/ks.log" |
		grep -vE 'plugin "[a-z_]+" failed to initialize on stream' >&2; then
		fail "$v: kernelshark printed errors"
	fi
	grep -q "Loading  *\"$dat\"" "$T/ks.log" || fail "$v: kernelshark did not say it loaded $dat"
	kill "$ks"
	wait "$ks" 2>/dev/null
	ks=""
	stop_xvfb
	echo "$v: KernelShark opened $dat"
done
echo "PASS"
