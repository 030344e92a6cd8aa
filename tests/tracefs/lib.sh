# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The tracefs script tests' helpers: run the same checks against the C API and through a FUSE
# mount. A script defines checks() and ends with `tfs_main`; checks() talks to tfs_driver:
#
#   ok  CMD ARGS...            the command succeeds
#   err ERRNO CMD ARGS...      it fails with ERRNO (EINVAL, ENOENT, ...)
#   is  EXPECTED CMD ARGS...   it succeeds and its output is exactly EXPECTED
#   has REGEX                  the last output has a line matching REGEX (grep -E)
#   hasnt REGEX                ... has none
#   errlog_has REGEX           error_log shows REGEX (the instance's: set TFS_ROOT)
#
# $TFS_MODE is "api" or "mount" while checks() runs. The driver's commands are listed in
# tests/tracefs/tfs_driver.c.
set -euo pipefail
export LC_ALL=C

TFS_DRIVER="$TREV_BUILD_DIR/tests/tfs_driver"
TFS_MNT=""
TFS_OUT=""
TFS_STATUS=""

fail() {
	echo "FAIL [$TFS_MODE]: $*" >&2
	echo "---- last output ($TFS_STATUS):" >&2
	printf '%s\n' "$TFS_OUT" >&2
	exit 1
}

tfs() {
	local len
	printf '%s\n' "$*" >&"${TFS[1]}"
	IFS=' ' read -r TFS_STATUS len <&"${TFS[0]}" || fail "driver died at: $*"
	TFS_OUT=""
	if [ "$len" -gt 0 ]; then
		IFS= read -r -N "$len" TFS_OUT <&"${TFS[0]}" || fail "short answer to: $*"
	fi
}

ok() {
	tfs "$@"
	[ "$TFS_STATUS" = ok ] || fail "'$*' gave $TFS_STATUS"
}

err() {
	local want=$1
	shift
	tfs "$@"
	[ "$TFS_STATUS" = "$want" ] || fail "'$*' gave $TFS_STATUS, expected $want"
}

is() {
	local want=$1
	shift
	ok "$@"
	[ "$TFS_OUT" = "$want" ] || fail "'$*': expected [$want]"
}

has() {
	grep -qE -- "$1" <<<"$TFS_OUT" || fail "no line matches /$1/"
}

hasnt() {
	if grep -qE -- "$1" <<<"$TFS_OUT"; then fail "a line matches /$1/"; fi
}

# The last error_log entry (3 lines) matches REGEX, with the caret under column COL of the command.
errlog_last() {
	local regex=$1 col=$2 lines n
	ok read "${TFS_ROOT:-}error_log"
	mapfile -t lines <<<"${TFS_OUT%$'\n'}"
	n=${#lines[@]}
	[ "$n" -ge 3 ] || fail "error_log has no entry"
	grep -qE -- "$regex" <<<"${lines[n - 3]}" || fail "last error_log entry does not match /$regex/"
	[ "${lines[n - 1]}" = "$(printf '%*s^' $((11 + col)) '')" ] ||
		fail "caret not at column $col: [${lines[n - 1]}]"
}

tfs_start() {
	TFS_MODE=$1
	if [ "$TFS_MODE" = mount ]; then
		TFS_MNT=$(mktemp -d)
		coproc TFS { exec "$TFS_DRIVER" mount "$TFS_MNT"; }
	else
		coproc TFS { exec "$TFS_DRIVER" api; }
	fi
	TFS_DPID=$TFS_PID
	local first
	read -r first <&"${TFS[0]}" || first="died"
	[ "$first" = ready ] || { TFS_WHY=$first; return 1; }
}

tfs_stop() {
	if [ -n "${TFS_DPID:-}" ]; then
		[ -z "${TFS[1]:-}" ] || eval "exec ${TFS[1]}>&-"
		[ -z "${TFS[0]:-}" ] || eval "exec ${TFS[0]}<&-"
		TFS_RC=0
		wait "$TFS_DPID" 2>/dev/null || TFS_RC=$?
		TFS_DPID=""
	fi
	if [ -n "$TFS_MNT" ]; then
		if grep -q " $TFS_MNT " /proc/mounts; then
			fusermount3 -u "$TFS_MNT" 2>/dev/null || umount -l "$TFS_MNT" 2>/dev/null || true
		fi
		rmdir "$TFS_MNT" 2>/dev/null || true
		TFS_MNT=""
	fi
}

tfs_main() {
	trap tfs_stop EXIT
	tfs_start api || fail "driver did not start: $TFS_WHY"
	checks
	tfs_stop
	[ "$TFS_RC" -eq 0 ] || fail "the driver exited with status $TFS_RC (a sanitizer report?)"
	echo "api: passed"
	if tfs_start mount; then
		checks
		tfs_stop
		[ "$TFS_RC" -eq 0 ] || fail "the driver exited with status $TFS_RC"
		echo "mount: passed"
	else
		tfs_stop
		echo "mount: SKIPPED ($TFS_WHY): FUSE cannot mount here; only the C API was checked"
	fi
}
