#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# synthetic_events written with echo, through the C API and a FUSE mount: definitions read back
# in the kernel's form, the event's directory under events/synthetic/ and its format, errors in
# error_log with the kernel's message and column, removal refused while the event is enabled
# (EBUSY) and its directory gone at once after it (no stale FUSE entry); dynamic_events' "s:"
# and "-:" lines, its list and its refusal of the kernel's probes.
source "$TREV_SOURCE_DIR/tests/tracefs/lib.sh"

S=events/synthetic/req_latency

checks() {
	ok write synthetic_events ''
	is '' read synthetic_events
	ok append synthetic_events 'req_latency u64 lat; s32 id; char name[]'
	is $'req_latency\tu64 lat; s32 id; char[] name\n' read synthetic_events
	ok stat $S
	ok read $S/format
	has $'^\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;$'
	has $'^\tfield:s32 id;\toffset:16;\tsize:4;\tsigned:1;$'
	has $'^\tfield:__data_loc char\\[\\] name;\toffset:24;\tsize:8;\tsigned:1;$'
	has '^print fmt: "lat=%llu, id=%d, name=%s", REC->lat, REC->id, __get_str\(name\)$'
	ok read available_events
	has '^synthetic:req_latency$'

	# Errors: the kernel's text, the caret where the kernel puts it; nothing changes.
	err EINVAL append synthetic_events 'other u64 lat; chr x'
	errlog_last 'synthetic_events: error: Invalid type$' 15
	err EINVAL append synthetic_events 'other u64 lat; char s[300]'
	errlog_last 'synthetic_events: error: Invalid array specification$' 20
	err EEXIST append synthetic_events 'req_latency u64 x'
	errlog_last 'synthetic_events: error: Event already exists$' 0
	is $'req_latency\tu64 lat; s32 id; char[] name\n' read synthetic_events

	# Enabled: removal is refused, by name and by O_TRUNC.
	ok write $S/enable 1
	err EBUSY append synthetic_events '!req_latency'
	err EBUSY write synthetic_events ''
	ok write $S/enable 0
	ok append synthetic_events '!req_latency'
	err ENOENT stat $S
	is '' read synthetic_events
	err ENOENT append synthetic_events '!req_latency'

	# dynamic_events: the same events in the kernel's "s:" form (ftracetest's add_remove_synth.tc).
	ok write dynamic_events ''
	ok append dynamic_events 's:latency1 u64 lat; pid_t pid;'
	ok append dynamic_events 's:synthetic/latency2 u64 lat; unsigned long[] stack'
	is $'s:synthetic/latency1\tu64 lat; pid_t pid\ns:synthetic/latency2\tu64 lat; unsigned long[] stack\n' \
		read dynamic_events
	ok stat events/synthetic/latency2
	ok read events/synthetic/latency2/format
	has $'^\tfield:__data_loc unsigned long\\[\\] stack;\toffset:16;\tsize:8;\tsigned:1;$'
	ok append dynamic_events '-:synthetic/latency2'
	err ENOENT stat events/synthetic/latency2
	err EINVAL append dynamic_events 'p:myprobe do_sys_open'
	errlog_last 'trace_kprobe: error: Invalid probed address or symbol$' 10
	err EINVAL append dynamic_events 's:latency3 u64 lat; chr x'
	errlog_last 'synthetic_events: error: Invalid type$' 20
	ok write dynamic_events ''
	is '' read dynamic_events
}

tfs_main
