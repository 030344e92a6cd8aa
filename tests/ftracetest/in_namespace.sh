#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# in_namespace.sh MOUNT SUITE LOGDIR [CASE...]: run by ftracetest.sh under `unshare -m`, in a
# mount namespace of its own. Binds trev's FUSE mount MOUNT over the kernel's tracefs paths,
# checks that the directory ftracetest will pick is trev's, and runs SUITE/ftracetest
# unmodified, keeping every case's log in LOGDIR. What the binds adapt (docs/ftracetest.md):
#   - /sys/kernel/tracing and /sys/kernel/debug/tracing: trev's tree, not the kernel's;
#   - /proc/sys/kernel/sched_rt_runtime_us: ftracetest writes -1 into it (for the kernel's
#     wakeup_rt tracer) and restores it at the end; here it writes a file of its own, so the
#     machine's setting is never changed.
set -euo pipefail

mnt=${1:?usage: in_namespace.sh MOUNT SUITE LOGDIR [CASE...]}
suite=${2:?}
logs=${3:?}
shift 3

# Nothing mounted here reaches the parent namespace.
mount --make-rprivate /

for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d" ] && mount --bind "$mnt" "$d"
done
rt=$(mktemp /tmp/ftracetest-rt.XXXXXX)
cat /proc/sys/kernel/sched_rt_runtime_us >"$rt"
mount --bind "$rt" /proc/sys/kernel/sched_rt_runtime_us

# ftracetest's own choice: the first tracefs in /proc/mounts (else it mounts one itself).
dir=$(grep tracefs /proc/mounts | cut -f2 -d' ' | head -1)
if [ -z "$dir" ] || [ "$(findmnt -n -o FSTYPE -T "$dir" | tail -1)" != fuse.trev ]; then
	echo "in_namespace.sh: ftracetest would use '${dir:-a new tracefs mount}', not trev's tree" >&2
	exit 1
fi

cd "$suite"
status=0
./ftracetest -k -l "$logs" "$@" || status=$?
umount /proc/sys/kernel/sched_rt_runtime_us
rm -f "$rt"
exit $status
