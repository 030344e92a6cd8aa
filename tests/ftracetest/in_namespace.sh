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
#   - /proc/sys/kernel/stack_tracer_enabled, the kernel's switch of its stack tracer (a
#     sysctl, absent when the kernel has no stack tracer): trev's tree's stack_tracer_enabled.
#     /proc/sys/kernel gets a tmpfs with a bind of each of its entries, and this one.
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

# /proc/sys/kernel as it is, but for the two files above: a tmpfs holding a bind of each
# entry of the real one (reached through a bind of it made first), then the two binds.
sysk=$(mktemp -d /tmp/ftracetest-sysk.XXXXXX)
mount --bind /proc/sys/kernel "$sysk"
mount -t tmpfs -o mode=0555 ftracetest-sysk /proc/sys/kernel
for e in "$sysk"/*; do
	n=${e##*/}
	case $n in sched_rt_runtime_us | stack_tracer_enabled) continue ;; esac
	if [ -d "$e" ]; then mkdir "/proc/sys/kernel/$n"; else : >"/proc/sys/kernel/$n"; fi
	mount --bind "$e" "/proc/sys/kernel/$n"
done
: >/proc/sys/kernel/sched_rt_runtime_us
: >/proc/sys/kernel/stack_tracer_enabled
mount --bind "$rt" /proc/sys/kernel/sched_rt_runtime_us
mount --bind "$mnt/stack_tracer_enabled" /proc/sys/kernel/stack_tracer_enabled

# ftracetest's own choice: the first tracefs in /proc/mounts (else it mounts one itself).
dir=$(grep tracefs /proc/mounts | cut -f2 -d' ' | head -1)
if [ -z "$dir" ] || [ "$(findmnt -n -o FSTYPE -T "$dir" | tail -1)" != fuse.trev ]; then
	echo "in_namespace.sh: ftracetest would use '${dir:-a new tracefs mount}', not trev's tree" >&2
	exit 1
fi

cd "$suite"
status=0
./ftracetest -k -l "$logs" "$@" || status=$?
# The namespace's mounts go with it; the temporary files are the machine's.
umount -l /proc/sys/kernel
umount "$sysk"
rmdir "$sysk"
rm -f "$rt"
exit $status
