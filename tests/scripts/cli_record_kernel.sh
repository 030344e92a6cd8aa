#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev record -K (docs/cli/trev-record.md, "The kernel's events"): the kernel's sched_switch
# recorded beside a program's trev events on the mono clock, into kernel.dat beside app.dat.
# `trace-cmd report -i kernel.dat -i app.dat` must interleave them in true order, and every
# trev event of a thread T on CPU c must fall between the kernel's sched_switch that switched
# T in on c and the one that switched it out. Under strace, every write trev record makes in
# tracefs is in its own instance, which is gone at the end (the top instance may change
# meanwhile by another tracer on a shared machine: without strace, a change fails). Refusals: a clock off the kernel's time
# line, an unknown kernel event, no root, no tracefs. Needs root and tracefs, else skipped (77).
set -uo pipefail
export LC_ALL=C

B="$TREV_BUILD_DIR"
trev="$B/tools/trev/trev"
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out="$T/out"
errf="$T/err"
TR=/sys/kernel/tracing
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is needed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the kernel's tracing files)"; exit 77; }
[ -d "$TR/instances" ] || { echo "SKIP: no tracefs at $TR (mount -t tracefs nodev $TR)"; exit 77; }

# The top instance's settings trev record -K must leave as they are.
top_state() { cat "$TR/trace_clock" "$TR/set_event" "$TR/tracing_on"; }
top_state >"$T/before"

# Refused before anything starts: usage (2), then the kernel's refusal (1).
run 2 "$trev" record -K sched:sched_switch -C local -o "$T/x.dat" -- "$B/tests/kt_app" 1 1
err_has "^trev: -K: -C local is not on the kernel's time line; give mono, mono_raw or boot$"
run 1 "$trev" record -K sched:no_such_event -o "$T/x.dat" -- "$B/tests/kt_app" 1 1
err_has "^trev: --kernel: set_event: 'sched:no_such_event': Invalid argument \(no such kernel event: see available_events\)$"
grep -q '^fired' "$out" && fail "the command ran although -K was refused"
ls "$TR/instances" | grep >/dev/null '^trev-record-' && fail "an instance was left: $(ls "$TR/instances")"
echo "ok: -C local and an unknown kernel event are refused before the command starts"

# Not root: a clear refusal (when user nobody can reach the command at all).
if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$trev" 2>/dev/null; then
	run 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$trev" record -K sched:sched_switch -o /tmp/x.dat -- "$B/tests/kt_app" 1 1
	err_has "^trev: --kernel: $TR: Permission denied \(recording the kernel's events needs root\)$"
	echo "ok: without root, -K is refused"
else
	echo "note: user nobody cannot reach $trev: the check without root is left out"
fi

# No tracefs: in a mount namespace of our own, where every tracefs mount is taken away.
if unshare -m true 2>/dev/null; then
	run 1 unshare -m bash -c 'for m in $(awk '"'"'$3 == "tracefs" { print $2 }'"'"' /proc/self/mounts |
		sort -r); do umount "$m" || exit 9; done; exec "$@"' sh \
		"$trev" record -K sched:sched_switch -o "$T/x.dat" -- "$B/tests/kt_app" 1 1
	err_has "^trev: --kernel: the kernel's tracefs is not mounted \(as root: mount -t tracefs nodev /sys/kernel/tracing\)$"
	echo "ok: without tracefs, -K is refused"
else
	echo "note: unshare -m fails here: the check without tracefs is left out"
fi

# The recording: 3 pinned threads x 200 events, sleeping or yielding between two.
# Under strace when it is there: every file trev record writes in tracefs is its instance's.
# (LeakSanitizer cannot run under ptrace: off for this run in the ASan tree.)
if command -v strace >/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" run 0 \
		strace -f -qq -o "$T/strace" -e trace=open,openat,mkdir,mkdirat,rmdir,unlinkat \
		"$trev" record -e trev_test:tt_ints -K sched:sched_switch -o "$T/s.dat" \
		--kernel-output "$T/s-kernel.dat" -- "$B/tests/kt_app" 20 1
	ls "$TR/instances" | grep >/dev/null '^trev-record-' && fail "an instance was left: $(ls "$TR/instances")"
	# Writes (O_WRONLY, O_RDWR), mkdir and rmdir under tracefs: only in instances/trev-record-PID/.
	grep -E "\"$TR/" "$T/strace" |
		grep -E '^[0-9]+ +((mkdir|mkdirat|rmdir|unlinkat)\(|open(at)?\(.*O_(WRONLY|RDWR))' \
		>"$T/writes" || true
	inst=$(grep -oE "mkdir(at)?\((AT_FDCWD, )?\"$TR/instances/trev-record-[0-9]+\"" "$T/writes" |
		grep -oE 'trev-record-[0-9]+' | head -1)
	[ -n "$inst" ] || fail "strace shows no mkdir of an instance: $(cat "$T/writes")"
	grep -vE "\"$TR/instances/$inst(/[^\"]*)?\"" "$T/writes" >"$T/outside" &&
		fail "trev record wrote outside its instance: $(cat "$T/outside")"
	grep -qE "rmdir\(\"$TR/instances/$inst\"\) = 0" "$T/writes" ||
		fail "strace shows no rmdir of $inst"
	echo "ok: strace: trev record -K made $(wc -l <"$T/writes") writes in tracefs, all in instances/$inst, which it removed"
fi

# The recording: 3 pinned threads x 200 events, sleeping or yielding between two.
threads=3 n=200
run 0 "$trev" record -e trev_test:tt_ints -K sched:sched_switch -o "$T/app.dat" -- \
	"$B/tests/kt_app" $n $threads
has "^fired $((threads * n))$"
err_has "^trev: wrote $T/kernel.dat \(the kernel's events: version 6, [0-9]+ bytes, [0-9]+ pages, 0 overwritten before they were read\)$"
err_has "^trev: wrote $T/app.dat \(version 6, [0-9]+ bytes\)$"
top_state >"$T/after"
ls "$TR/instances" | grep >/dev/null '^trev-record-' && fail "an instance was left: $(ls "$TR/instances")"
if ! cmp -s "$T/before" "$T/after"; then
	# Another tracer on this machine may change the top instance meanwhile; strace above
	# showed that trev record does not.
	command -v strace >/dev/null ||
		fail "the top instance changed: $(diff "$T/before" "$T/after")"
	echo "note: the top instance changed during the run, not by trev record: $(diff "$T/before" "$T/after" | tr '\n' ' ')"
fi
echo "ok: recorded; no instance is left"

# Both files name the clock they were recorded with.
for f in kernel app; do
	trace-cmd dump --options "$T/$f.dat" >"$T/$f.options" 2>&1
	grep -q '\[mono\]' "$T/$f.options" || fail "$f.dat does not name [mono] as its clock"
done

trace-cmd report -t -i "$T/kernel.dat" -i "$T/app.dat" >"$T/merged" 2>"$errf" ||
	fail "trace-cmd report cannot read both files"
grep -q 'EVENTS DROPPED' "$T/merged" && fail "events were lost: $(grep 'EVENTS DROPPED' "$T/merged")"

# One line per event: SRC CPU SEC NSEC EVENT REST (SRC kernel or app).
sed -nE 's/^ *(kernel|app)\.dat: +.*-[0-9]+ +\[([0-9]+)\] +([0-9]+)\.([0-9]{9}): +([a-z_]+): +(.*)$/\1 \2 \3 \4 \5 \6/p' \
	"$T/merged" >"$T/events"
# sched_switch: REST is "PREV_COMM:PREV_PID [PRIO] STATE ==> NEXT_COMM:NEXT_PID [PRIO]";
# tt_ints: "a=I b=K c=CPU". The app's lines carry their thread id apart.
sed -nE 's/^ *app\.dat: +.*-([0-9]+) +\[[0-9]+\] .* tt_ints: .*$/\1/p' "$T/merged" >"$T/tids"
[ "$(wc -l <"$T/tids")" = $((threads * n)) ] ||
	fail "$(wc -l <"$T/tids") trev events in the merged report, not $((threads * n))"
# The kernel of this project's VM (6.18 under Firecracker) does not record every sched_switch,
# with or without trev: none out of the idle task on some CPUs, none out of some tasks (a
# plain kernel instance, 4 runs of kt_app: 183 of 10033 switches had a prev that was not the
# CPU's last next, 174 of them after the idle task). So on each CPU: the switch before an
# event of T switched T in, or switched in a task that is not one of the program's threads
# and whose switch out was not recorded (counted, "entered unrecorded"); the switch after
# the event switched T out, always.
awk -v want=$((threads * n)) -v threads=$threads '
function die(msg) { print "FAIL: " msg > "/dev/stderr"; bad = 1; exit 1 }
BEGIN { while ((getline tid < ARGV[2]) > 0) { tids[++ntid] = tid; ours[tid] = 1 }; ARGV[2] = "" }
{
	src = $1; cpu = $2; sec = $3 + 0; nsec = $4 + 0; ev = $5; at = sec "." $4
	# trace-cmd interleaves the two files in time stamp order
	if (NR > 1 && (sec < lsec || (sec == lsec && nsec < lnsec)))
		die("line " NR " (" $0 ") is older than the line before it")
	lsec = sec; lnsec = nsec
	if (src == "kernel" && ev == "sched_switch") {
		if (!match($0, /:[0-9]+ \[[0-9]+\] [^ ]+ ==> /))
			die("cannot read " $0)
		s = substr($0, RSTART + 1); sub(/ .*/, "", s); prev = s + 0
		s = $0; sub(/ \[[0-9]+\]$/, "", s); sub(/.*:/, "", s); next_pid = s + 0
		if ((cpu in pending) && pending[cpu] != prev)
			die("thread " pending[cpu] " had an event on CPU " cpu " at " evat[cpu] ", but the next switch there, at " at ", switched out " prev)
		if ((cpu in cur) && cur[cpu] != prev) {
			if (cur[cpu] in ours)
				die("CPU " cpu ": " prev " switched out at " at ", but the program'"'"'s thread " cur[cpu] " was switched in at " since[cpu])
			gaps++
		}
		delete pending[cpu]
		cur[cpu] = next_pid; since[cpu] = at
		nswitch++
		next
	}
	if (src == "app" && ev == "tt_ints") {
		tid = tids[++nev]
		pinned = $8; sub(/^c=/, "", pinned)	# $6..$8: a=I b=K c=CPU
		if (pinned + 0 != cpu + 0)
			die("thread " tid " pinned to CPU " pinned " has an event on CPU " cpu)
		if (!(cpu in cur))
			die("event of " tid " at " at " on CPU " cpu " before any switch there")
		if (cur[cpu] != tid && (cur[cpu] in ours))
			die("event of " tid " at " at " on CPU " cpu " while the kernel ran the program'"'"'s thread " cur[cpu] " there (switched in at " since[cpu] ")")
		if (!(cpu in pending)) {	# the first event of this stay on the CPU
			stays[tid]++
			if (cur[cpu] != tid)
				unrecorded++
		}
		pending[cpu] = tid; evat[cpu] = at
	}
}
END {
	if (bad)
		exit 1
	for (c in pending)
		die("thread " pending[c] " was never switched out of CPU " c " after its event at " evat[c])
	if (nev != want)
		die(nev " trev events, not " want)
	for (t in stays) {
		nt++
		if (stays[t] < 2)
			die("thread " t " had its events in one stay on its CPU: nothing was checked across switches")
		total += stays[t]
	}
	if (nt != threads)
		die(nt " threads had events, not " threads)
	if (unrecorded == total)
		die("no stay began with a recorded switch-in")
	printf "ok: %d trev events of %d threads in %d stays on their CPUs (%d entered unrecorded); each between the sched_switch that switched its thread in and the one that switched it out (%d sched_switch, %d switches out not recorded)\n", nev, nt, total, unrecorded, nswitch, gaps + 0
}' "$T/events" "$T/tids" || fail "the two time lines disagree (merged report in $T/merged)"
