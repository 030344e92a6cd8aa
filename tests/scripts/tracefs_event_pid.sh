#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Which threads and CPUs an instance records events from (docs/tracefs.md, "set_event_pid,
# set_event_notrace_pid, tracing_cpumask"): set_event_pid, set_event_notrace_pid with
# options/event-fork, tracing_cpumask; and options/stacktrace's stack after each event.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

count() { # the tt_ints lines of the last output
	printf '%s' "$TFS_OUT" | grep -c 'tt_ints: a=' || true
}

# The kernel's "%*pb" of a mask of the first $1 CPUs all set.
full_mask() {
	local n=$1 out="" chunk
	chunk=$((n % 32 ? n % 32 : 32))
	for ((i = (n + 31) / 32 * 32 - 32; i >= 0; i -= 32)); do
		local bits=$(( i + chunk <= n ? chunk : n - i )) v
		v=$(printf '%0*x' $(((chunk + 3) / 4)) $(( (1 << bits) - 1 )))
		out="${out:+$out,}$v"
		chunk=32
	done
	echo "$out"
}

checks() {
	local me other list ncpu
	ok tid
	me=${TFS_OUT%$'\n'}
	other=$((me + 1000000))
	is "" read set_event_pid
	is "" read set_event_notrace_pid
	ok write events/trev_test/tt_ints/enable 1

	# set_event_pid: only the threads listed record; `>>` adds, `>` replaces, empty clears.
	ok write trace ""
	ok write set_event_pid "$other"
	is "$other"$'\n' read set_event_pid
	ok fire 3
	ok read trace
	[ "$(count)" -eq 0 ] || fail "a thread not in set_event_pid recorded"
	ok append set_event_pid "$me"
	list=$(printf '%s\n' "$me" "$other" | sort -n)
	is "$list"$'\n' read set_event_pid
	ok fire 2
	ok read trace
	[ "$(count)" -eq 2 ] || fail "the listed thread recorded $(count), not 2"
	# Bad input: refused whole, the list stays, error_log points at the bad word.
	ok write error_log ""
	err EINVAL append set_event_pid "12 x3"
	is "$list"$'\n' read set_event_pid
	errlog_last 'set_event_pid: error: Invalid thread id$' 3
	err EINVAL append set_event_pid "0"
	is "$list"$'\n' read set_event_pid
	ok write set_event_pid "$other"
	is "$other"$'\n' read set_event_pid
	ok write set_event_pid ""
	is "" read set_event_pid
	ok write trace ""
	ok fire 1
	ok read trace
	[ "$(count)" -eq 1 ] || fail "no list: every thread records"

	# set_event_notrace_pid: the threads listed do not record.
	ok write set_event_notrace_pid "$me"
	is "$me"$'\n' read set_event_notrace_pid
	ok fire 2
	ok read trace
	[ "$(count)" -eq 1 ] || fail "a thread in set_event_notrace_pid recorded"
	ok write set_event_notrace_pid ""
	ok fire 1
	ok read trace
	[ "$(count)" -eq 2 ] || fail "set_event_notrace_pid cleared: the thread records again"

	# Per instance: the instance's list leaves the top alone.
	ok mkdir instances/foo
	is "" read instances/foo/set_event_pid
	ok write instances/foo/set_event_pid "$other"
	is "" read set_event_pid
	ok write instances/foo/events/trev_test/tt_ints/enable 1
	ok write trace ""
	ok fire 2
	ok read instances/foo/trace
	[ "$(count)" -eq 0 ] || fail "the instance's set_event_pid did not hold"
	ok read trace
	[ "$(count)" -eq 2 ] || fail "the top recorded $(count), not 2"
	ok rmdir instances/foo

	# options/event-fork: a child of fork() joins the lists its parent is in.
	is $'0\n' read options/event-fork
	ok write set_event_pid "$me"
	ok write options/event-fork 1
	ok forkread set_event_pid 2
	local child
	child=$(sed -n 's/^child //p' <<<"$TFS_OUT")
	[ -n "$child" ] || fail "no child"
	list=$(printf '%s\n' "$me" "$child" | sort -n)
	[ "$(sed 1d <<<"$TFS_OUT")" = "$list" ] || fail "the child's set_event_pid is not parent + child"
	ok forkread trace 2
	[ "$(count)" -eq 2 ] || fail "the forked child's events were not recorded in the child"
	ok write options/event-fork 0
	ok forkread set_event_pid 2
	[ "$(sed 1d <<<"$TFS_OUT")" = "$me" ] || fail "without event-fork the child joined"
	ok forkread trace 2
	[ "$(count)" -eq 0 ] || fail "without event-fork the child recorded"
	ok write set_event_pid ""

	# options/stacktrace: a kernel_stack record after each event, from the caller down.
	ok write trace ""
	is $'0\n' read options/stacktrace
	ok write options/stacktrace 1
	ok fire 1
	ok read trace
	has '^ => main$'
	[ "$(grep -c '<stack trace>' <<<"$TFS_OUT")" -eq 1 ] || fail "not one stack for one event"
	ok write options/stacktrace 0
	ok write trace ""
	ok fire 1
	ok read trace
	hasnt '<stack trace>'

	# tracing_cpumask: the kernel's "%*pb" of the CPUs; the others' events are not recorded.
	ncpu=$(getconf _NPROCESSORS_CONF)
	is "$(full_mask "$ncpu")"$'\n' read tracing_cpumask
	ok write error_log ""
	err EINVAL write tracing_cpumask "1g"
	errlog_last 'tracing_cpumask: error: Not a hex digit$' 1
	err EINVAL write tracing_cpumask ""
	err EINVAL write tracing_cpumask "1,,1"
	if [ "$ncpu" -lt 32 ]; then
		err EINVAL write tracing_cpumask "$(printf '%x' $((1 << ncpu)))"
		errlog_last 'tracing_cpumask: error: The mask names a CPU that does not exist$' 0
	fi
	is "$(full_mask "$ncpu")"$'\n' read tracing_cpumask
	if [ "$ncpu" -ge 2 ] && tfs pin 1 && [ "$TFS_STATUS" = ok ]; then
		ok write tracing_cpumask 1
		if [ "$ncpu" -le 32 ]; then
			is "$(printf '%0*x' $(((ncpu + 3) / 4)) 1)"$'\n' read tracing_cpumask
		fi
		ok write trace ""
		ok fire 2
		ok read trace
		[ "$(count)" -eq 0 ] || fail "CPU 1 recorded, outside tracing_cpumask 1"
		ok write tracing_cpumask 2
		ok fire 2
		ok read trace
		[ "$(count)" -eq 2 ] || fail "CPU 1 did not record with tracing_cpumask 2"
		[ "$(grep 'tt_ints: a=' <<<"$TFS_OUT" | grep -vc '\[001\]')" -eq 0 ] ||
			fail "a record not of CPU 1"
		# In an instance: its own mask.
		ok mkdir instances/foo
		is "$(full_mask "$ncpu")"$'\n' read instances/foo/tracing_cpumask
		ok rmdir instances/foo
		ok write tracing_cpumask "$(full_mask "$ncpu")"
		ok fire 1
		ok read trace
		[ "$(count)" -eq 3 ] || fail "the full mask again: CPU 1 records"
	else
		echo "tracing_cpumask's recording not checked: one CPU or no pinning here"
	fi
	ok write events/trev_test/tt_ints/enable 0
}

tfs_main
