#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One man page from one page of docs/, with go-md2man (Debian's go-md2man):
#   md2man.sh GO_MD2MAN DOC.md OUT NAME SECTION VERSION SUMMARY [SEE_ALSO...]
# The page's "# title" becomes NAME ("NAME - SUMMARY"); a code block right under it, the
# synopsis of a docs/cli page, becomes SYNOPSIS; the rest is DESCRIPTION, its "##" sections
# the man page's sections; SEE ALSO lists the other pages given (as "trev-record(1)").
# go-md2man sets table cells as plain table entries, which do not wrap: they are made text
# blocks here (those longer than the column's share of the line), the last column taking the
# width that is left, so that a table fits 80 columns; the text is set ragged right.
set -euo pipefail
export LC_ALL=C

[ $# -ge 7 ] || { echo "usage: $0 GO_MD2MAN DOC.md OUT NAME SECTION VERSION SUMMARY [SEE_ALSO...]" >&2; exit 2; }
md2man=$1 doc=$2 out=$3 name=$4 section=$5 version=$6 summary=$7
shift 7
see_also=$(printf '%s, ' "$@")
see_also=${see_also%, }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Markdown: the title block and NAME, the headings one level up outside code blocks.
awk -v name="$name" -v section="$section" -v version="$version" -v summary="$summary" \
	-v see_also="$see_also" '
BEGIN {
	printf "%% %s %s \"\" \"trev %s\" \"trev manual\"\n\n", toupper(name), section, version
	printf "# NAME\n%s - %s\n\n", name, summary
}
NR == 1 {
	if ($0 !~ /^# /) {
		printf "%s: the page does not open with a \"# title\" line\n", FILENAME > "/dev/stderr"
		exit 1
	}
	state = "head"
	next
}
state == "head" && /^[ \t]*$/ { next }
state == "head" {
	print (/^```/ ? "# SYNOPSIS" : "# DESCRIPTION")
	state = /^```/ ? "synopsis" : "body"
	print ""
}
# The tags of tests/scripts/doc_examples.sh (an HTML comment before a fence): not text.
!fence && /^[ \t]*<!-- example:.*-->[ \t]*$/ { next }
/^```/ {
	fence = !fence
	print
	if (!fence && state == "synopsis") {
		print "\n# DESCRIPTION"
		state = "body"
	}
	next
}
# Links: the text alone (the other pages of docs/ are not beside a man page), a web
# address after it in parentheses.
!fence {
	out = ""
	while (match($0, /\[[^]]*\]\([^)]*\)/)) {
		link = substr($0, RSTART, RLENGTH)
		text = link
		sub(/\]\(.*/, "", text)
		url = link
		sub(/^.*\]\(/, "", url)
		sub(/\)$/, "", url)
		out = out substr($0, 1, RSTART - 1) substr(text, 2) \
			(url ~ /^https?:/ ? " (" url ")" : "")
		$0 = substr($0, RSTART + RLENGTH)
	}
	$0 = out $0
}
!fence && /^##+ / {
	sub(/^#/, "")
	if (/^# /)
		$0 = "# " toupper(substr($0, 3))
}
{ print }
END {
	if (see_also != "")
		printf "\n# SEE ALSO\n%s\n", see_also
}' "$doc" >"$tmp/page.md"

"$md2man" -in "$tmp/page.md" -out "$tmp/page.roff"

# Roff: tbl first (the preprocessor line), every table cell a text block.
awk '
function flush_row(    i, c, line) {
	line = ""
	for (i = 1; i <= ncell; i++) {
		c = cell[i]
		if (length(c) > wide || c ~ /\n/)
			c = "T{\n.na\n.nh\n" breaks(c) "\nT}"
		line = line (i > 1 ? "\t" : "") c
		if (length(cell[i]) > maxlen[i])
			maxlen[i] = length(cell[i])
	}
	if (ncell)
		rows = rows line "\n"
	ncell = 0
}
# The cells of one line of a row, the last of which may open a text block.
function cells(text,    n, f, i) {
	n = split(text, f, "\t")
	for (i = 1; i <= n; i++) {
		if (i == n && f[i] == "T{") {
			inblock = 1
			block = ""
			return
		}
		cell[++ncell] = esc(f[i])
	}
	flush_row()
}
# A line that starts with a control character but is text (go-md2man leaves "./x" so).
function esc(s) {
	if (s ~ /^[.'\'']/ && s !~ /^[.'\''](IP|PP|RE|RS|SH|SS|TE|TH|TS|TP|fi|nf|nh|na|ad|br|sp)([ \t]|$)/)
		return "\\&" s
	return s
}
# Break points (\:) after : / _ = | (and before /) in a cell, where a long path or name may
# wrap; after . too in the narrow columns of a table of more than 4, and between two long
# words joined by one ("seconds.microseconds") in any.
function breaks(s,    out) {
	gsub(/:/, ":\\:", s)
	gsub(/\//, "\\:/", s)
	gsub(/[\/_=|]/, "&\\:", s)
	if (ncol > 4)
		gsub(/\./, "&\\:", s)
	out = ""
	while (match(s, /[A-Za-z][A-Za-z][A-Za-z][A-Za-z][A-Za-z]\.[a-z][a-z][a-z][a-z][a-z]/)) {
		out = out substr(s, 1, RSTART + 5) "\\:"
		s = substr(s, RSTART + 6)
	}
	return out s
}
NR == 1 { print "'\''\\\" t" }
# Ragged right: a long code span leaves no line to stretch.
/^\.TH / { print; print ".ad l"; next }
/^\.TS$/ { intable = 1; fmt = 0; ncell = 0; rows = ""; split("", maxlen); print; next }
intable && /^\.TE$/ {
	flush_row()
	intable = after_block = 0
	# Up to 4 columns: the one of the longest text takes the width that is left.
	# More: each an equal share of 72 columns less the rules between them.
	x = 1
	for (i = 2; i <= ncol; i++)
		if (maxlen[i] > maxlen[x])
			x = i
	line = ""
	for (i = 1; i <= ncol; i++)
		line = line (i > 1 ? " " : "") "l" (ncol > 4 ? "w(" int((72 - 3 * ncol) / ncol) "n)" : \
			i == x ? "x" : "")
	printf "%s .\n%s.TE\n", line, rows
	next
}
intable && fmt == 0 && /;$/ { print; next }
intable && fmt == 0 {
	# The format lines: replaced at .TE, when the widths of the columns are known.
	if (/\.$/) {
		line = $0
		sub(/ *\.$/, "", line)
		ncol = split(line, col, /[ \t]+/)
		fmt = 1
		wide = ncol <= 4 ? int(64 / ncol) : 0
	}
	next
}
# go-md2man ends a text block with "T}" alone and puts the next cells of the row on the line
# after it, after a tab.
intable && after_block {
	after_block = 0
	if (/^\t/) {
		cells(substr($0, 2))
		next
	}
	flush_row()
}
intable && inblock {
	if (/^T}/) {
		inblock = 0
		cell[++ncell] = block
		rest = substr($0, 3)
		if (rest ~ /^\t/)
			cells(substr(rest, 2))
		else
			after_block = 1
	} else {
		block = block (block == "" ? "" : "\n") esc($0)
	}
	next
}
intable { cells($0); next }
{ print esc($0) }' "$tmp/page.roff" >"$tmp/page.out"

mv "$tmp/page.out" "$out"
