# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What the trev command's script tests share (tests/scripts/cli_*.sh, control_*.sh). A
# script sets $out and $errf (files for a command's stdout and stderr) and sources this:
#
#   run STATUS CMD...   run CMD, keep its stdout and stderr, check its exit status
#   has REGEX           its stdout has a line matching REGEX (grep -E)
#   err_has REGEX       its stderr has one
#   err_is N TEXT       line N of its stderr is TEXT
#   fail MESSAGE        print MESSAGE, the last command's output, and exit 1
#
# Optional: $fail_stdout_lines limits the stdout shown by fail; a function fail_more,
# if the script defines one, prints more after it.

fail() {
	echo "FAIL: $*" >&2
	echo "---- stdout:" >&2
	if [ -n "${fail_stdout_lines:-}" ]; then head -"$fail_stdout_lines" "$out" >&2; else cat "$out" >&2; fi
	echo "---- stderr:" >&2; cat "$errf" >&2
	if declare -F fail_more >/dev/null; then fail_more >&2; fi
	exit 1
}

run() {
	local want=$1 st
	shift
	"$@" >"$out" 2>"$errf"
	st=$?
	[ "$st" = "$want" ] || fail "'$*' exited $st, expected $want"
}

has() { grep -qE -- "$1" "$out" || fail "stdout has no line matching /$1/"; }
err_has() { grep -qE -- "$1" "$errf" || fail "stderr has no line matching /$1/"; }
err_is() { [ "$(sed -n "${1}p" "$errf")" = "$2" ] || fail "stderr line $1 is not '$2'"; }
