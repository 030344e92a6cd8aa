#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Trace Event Format JSON (what `trev convert --to json` writes, docs/viewers.md) opened in
# speedscope, a viewer users run locally, in Debian's chromium without a display: the npm
# package's own build from file://, the file given to its "Browse" button, driven by
# playwright-core (tests/browser/speedscope.mjs, which reports what the page shows). Checked:
# one profile per pid/tid named from the process_name/thread_name metadata, the Sandwich
# view's rows (function names with total and self times, which only add up when the slices
# nest as written), the nesting speedscope exports, a screenshot of the flame chart with the
# slices' colours on it (kept as $TREV_BUILD_DIR/browser/artifacts/*.png), no request leaving
# file://; and files speedscope does not import (cut short, no slices, an end that closes
# another slice) fail with speedscope's own message. Where this trev has `convert --to json`,
# also the converter's edge cases (lost and missing exits, tests/tracedat/json_dat.c) and a
# real recording (function_graph of ft_app): its functions by name, nested as called, each
# function's total time equal to trace-cmd report's sum of its calls.
#
# playwright-core and speedscope come from tests/browser/package-lock.json, installed by npm ci
# into $TREV_BUILD_DIR/browser/ on the first run (npm's cache makes later installs offline).
# Exits 77 (skipped) in a sanitizer tree, without chromium (apt-get install chromium: make
# deps), node or npm, or when npm cannot reach its registry for the first install (and, for
# the recording, without trace-cmd).
set -uo pipefail
export LC_ALL=C

S=$TREV_SOURCE_DIR/tests/browser
D=$TREV_BUILD_DIR/browser
A=$D/artifacts
skip() {
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	[ -s "$T/err" ] && { echo "---- stderr:" >&2; cat "$T/err" >&2; }
	exit 1
}

# chromium is not ours to sanitize: the normal tree only.
sanitize=$(sed -n 's/^TREV_SANITIZE:STRING=//p' "$TREV_BUILD_DIR/CMakeCache.txt" 2>/dev/null)
[ -z "$sanitize" ] || skip "a $sanitize sanitizer tree: the browser test runs in the normal tree"
chromium=$(command -v chromium) || skip "chromium is not installed (apt-get install chromium)"
for tool in node npm jq; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is older than playwright-core's 18"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The pinned packages, installed again only when the lock file changed.
mkdir -p "$D" "$A" || fail "cannot create $D"
if ! cmp -s "$S/package-lock.json" "$D/package-lock.json" ||
	[ ! -f "$D/node_modules/playwright-core/package.json" ] ||
	[ ! -f "$D/node_modules/speedscope/package.json" ]; then
	cp "$S/package.json" "$S/package-lock.json" "$D/" || fail "cannot copy the package files to $D"
	if ! (cd "$D" && npm ci --prefer-offline --no-audit --no-fund) >"$T/npm.log" 2>&1; then
		grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH' "$T/npm.log" &&
			skip "npm cannot reach its registry: $(grep -m1 -E 'ENOTFOUND|EAI_AGAIN|ECONN|ETIMEDOUT|ENETUNREACH' "$T/npm.log")"
		cat "$T/npm.log" >&2
		rm -f "$D/package-lock.json"
		fail "npm ci in $D"
	fi
fi

# view FILE: speedscope's view of FILE as JSON in $T/view.json (screenshots in $A), or fail.
view() {
	node "$S/speedscope.mjs" "$D" "$chromium" "$1" "$A" >"$T/view.json" 2>"$T/err" ||
		fail "speedscope did not show $1"
	cp "$T/view.json" "$A/$(basename "$1" .json).view.json"
}
# check JQ WHAT: the view's JSON satisfies the jq expression JQ.
check() {
	jq -e "$1" "$T/view.json" >/dev/null ||
		fail "$2: $(jq -c "${3:-.}" "$T/view.json" | head -c 2000)"
}

# A hand-written file in the converter's layout: two processes, one with two threads, slices
# nested to depth 3, instant events and a lost-events marker between them (which speedscope
# leaves out: it shows slices only).
fx=$S/fixtures/two_processes.json
view "$fx"
check '[.profiles[].name] == ["app (pid 100), app (tid 100)", "app (pid 100), worker (tid 101)",
	"child (pid 200), child (tid 200)"]' "the profiles are not one per thread, named from the metadata" \
	'[.profiles[].name]'
check '[.profiles[].stacks] == [
	{"main": 30, "main;foo": 30, "main;bar": 30, "main;bar;baz": 10},
	{"work_item": 140, "work_item;foo": 60},
	{"main": 200, "main;child_run": 200}]' "the slices are not nested as written" '[.profiles[].stacks]'
# The Sandwich table: every function once, its total and self time as the slices say.
check '[.profiles[] | [.sandwich[] | [.name, .total_us, .self_us]] | sort] == [
	[["bar", 40, 30], ["baz", 10, 10], ["foo", 30, 30], ["main", 100, 30]],
	[["foo", 60, 60], ["work_item", 200, 140]],
	[["child_run", 200, 200], ["main", 400, 200]]]' "the Sandwich view's rows" \
	'[.profiles[] | [.sandwich[] | [.name, .total, .self]]]'
check '[.profiles[].sandwich[] | select(.name == "main" and .total == "100.00µs (100%)"
	and .self == "30.00µs (30%)")] | length == 1' "the Sandwich view's text of main" \
	'[.profiles[].sandwich[]]'
# The flame chart is drawn: as many slice colours (on 100 pixels or more) as the profile has
# functions, and at least 1% of the picture in them.
check 'all(.profiles[]; .pixels.colours >= (.sandwich | length) and
	.pixels.coloured * 100 >= .pixels.width * .pixels.height)' "a flame chart looks blank" \
	'[.profiles[] | {name, pixels}]'
for i in 1 2 3; do
	[ -s "$A/two_processes.$i.png" ] || fail "no screenshot $A/two_processes.$i.png"
done

# Files speedscope does not import fail, with its message.
# broken FILE REGEX: viewing FILE exits 2 and says REGEX.
broken() {
	node "$S/speedscope.mjs" "$D" "$chromium" "$1" "$A" >"$T/view.json" 2>"$T/err"
	local st=$?
	[ "$st" = 2 ] || fail "$1: speedscope.mjs exited $st, expected 2 (not imported)"
	grep -qE -- "$2" "$T/err" || fail "$1: no /$2/ in its message"
}
head -c 600 "$fx" >"$T/cut_short.json"
broken "$T/cut_short.json" 'alert: Unrecognized format!'
jq -c '{traceEvents: [.traceEvents[] | select(.ph != "B" and .ph != "E")]}' "$fx" >"$T/no_slices.json"
broken "$T/no_slices.json" "alert: Successfully imported profile, but it's empty!"
# baz's end named bar: speedscope keeps baz open and says so.
jq -c '{traceEvents: [.traceEvents[] | if .ph == "E" and .name == "baz" then .name = "bar" else . end]}' \
	"$fx" >"$T/crossed.json"
broken "$T/crossed.json" 'warning: .*Tried to end "bar" when "baz" was on the top of the stack'

# A real recording: function_graph of ft_app (the function tracer's test program,
# tests/ftrace/ft_app.c) converted by trev convert --to json. Its functions are in speedscope,
# nested as they called each other, each with the total time that trace-cmd report (reading
# the trace.dat itself) gives its calls, to the digits speedscope shows.
trev=$TREV_BUILD_DIR/tools/trev/trev
if [[ $("$trev" convert --to json "$T/none.dat" "$T/none.json" 2>&1) == *"unknown format"* ]]; then
	echo "NOTE: this trev has no convert --to json: the recording is not opened"
else
	command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
	# The converter's edge cases (tests/golden/json/session.json, made by json_dat): a call
	# whose exit was lost, closed by its caller's exit, and a call never ended. speedscope
	# nests them as written; every E carries args its B has not (4 of them).
	[ -x "$TREV_BUILD_DIR/tests/json_dat" ] || fail "no $TREV_BUILD_DIR/tests/json_dat"
	mkdir "$T/g"
	"$TREV_BUILD_DIR/tests/json_dat" golden "$T/g" >/dev/null 2>"$T/err" || fail "json_dat golden"
	"$trev" merge -o "$T/g/session.dat" "$T/g/app.dat" "$T/g/child.dat=child-200" \
		>/dev/null 2>"$T/err" || fail "trev merge of json_dat's files"
	"$trev" convert --to json "$T/g/session.dat" "$T/g/session.json" 2>"$T/err" ||
		fail "trev convert --to json of json_dat's session"
	view "$T/g/session.json"
	check '[.profiles[].name] == ["app (pid 100), app (tid 100)"] and .ends_with_other_args == 4 and
		.profiles[0].stacks == {"outer": 0.1, "outer;inner": 0.2, "outer;inner;leaf": 0.1,
		"0x999000": 0.1}' "json_dat's session" '{ends_with_other_args, p: [.profiles[] | {name, stacks}]}'

	[ -x "$TREV_BUILD_DIR/tests/ft_app" ] || fail "no $TREV_BUILD_DIR/tests/ft_app"
	(cd "$T" && TREV_WRITE='set_ftrace_filter=ft_*' "$trev" record -t function_graph \
		-o "$T/ft_app.dat" -- "$TREV_BUILD_DIR/tests/ft_app") >"$T/rec.log" 2>"$T/err" ||
		fail "trev record -t function_graph of ft_app"
	"$trev" convert --to json "$T/ft_app.dat" "$T/ft_app.json" 2>"$T/err" ||
		fail "trev convert --to json"
	cp "$T/ft_app.json" "$A/"
	view "$T/ft_app.json"
	pid=$(jq '[.traceEvents[] | select(.ph == "M" and .name == "process_name")][0].pid' \
		"$T/ft_app.json")
	check "[.profiles[].name] == [\"ft_app (pid $pid), ft_app (tid $pid)\"]" \
		"the recording is not one profile named after ft_app and its pid $pid" '[.profiles[].name]'
	check '.profiles[0].stacks | keys == ["ft_fma", "ft_mix", "ft_outer", "ft_outer;ft_add",
		"ft_spin"]' "ft_app's calls are not nested as it made them" '.profiles[0].stacks'
	check '.profiles[0].pixels | .colours >= 2 and .coloured * 100 >= .width * .height' \
		"the flame chart of ft_app looks blank" '.profiles[0].pixels'
	# trace-cmd report's graph: "func() {" opens, "}" closes with the call's duration,
	# "func();" is a whole call; the total of each function in µs.
	trace-cmd report -i "$T/ft_app.dat" 2>/dev/null | awk '
		/ funcgraph_(entry|exit): / {
			line = $0
			sub(/.* funcgraph_(entry|exit): */, "", line)
			d = ""
			if (match(line, /[0-9]+\.[0-9]+ us/))
				d = substr(line, RSTART, RLENGTH) + 0
			sub(/.*\| */, "", line)
			if (line ~ /\(\) \{$/) {
				sub(/\(\) \{$/, "", line)
				open[++n] = line
			} else if (line ~ /^\}/) {
				if (n)
					total[open[n--]] += d
			} else if (line ~ /\(\);$/) {
				sub(/\(\);$/, "", line)
				total[line] += d
			}
		}
		END { for (f in total) printf "%s %.3f\n", f, total[f] }' | sort >"$T/tc_totals"
	[ "$(wc -l <"$T/tc_totals")" = 5 ] || fail "trace-cmd report's graph: $(cat "$T/tc_totals")"
	jq -r '.profiles[0].sandwich[] | "\(.name) \(.total_us) \(.total)"' "$T/view.json" | sort \
		>"$T/ss_totals"
	join "$T/tc_totals" "$T/ss_totals" | awk '
		{
			# Half a unit of the last digit speedscope shows (two decimals), and
			# 1 ns: speedscope sums durations of doubles in µs whose time stamps
			# lie near the machine uptime (2e10 µs after six hours: a unit in
			# the last place is 0.004 ns, and it adds up over the calls), where
			# trace-cmd adds exact nanoseconds (seen: 271.01 ns against 271).
			tol = ($4 ~ /^[0-9.]+ns/ ? 0.000005 : $4 ~ /µs/ ? 0.005 : $4 ~ /ms/ ? 5 : 5000) + 0.001
			diff = $2 - $3
			if (diff < 0)
				diff = -diff
			if (diff > tol + 1e-9) {
				print "total of " $1 ": trace-cmd " $2 " us, speedscope " $4
				bad = 1
			}
			n++
		}
		END { exit bad || n != 5 }' >"$T/totals_diff" ||
		fail "speedscope's totals are not trace-cmd's: $(cat "$T/totals_diff" "$T/tc_totals" "$T/ss_totals")"
fi

echo "PASS: speedscope $(jq -r .version "$D/node_modules/speedscope/package.json"), $($chromium --version 2>/dev/null)"
