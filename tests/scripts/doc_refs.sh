#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The references in the sources and docs lead somewhere a reader of the repository can go
# (issue 20): no file under src/ include/ tools/ tests/ docs/ examples/ bench/ or README.md
# names the planners' notes kept outside the project (their facts are in docs/formats.md,
# docs/fuse.md and docs/ring-buffer.md now); every docs/<page>.md cited exists; and where a
# citation names a section on the same line (docs/<page>.md, "Section"), the page has a heading
# that starts with it (case aside) or a paragraph that opens with it in bold.
set -uo pipefail
export LC_ALL=C

cd "${TREV_SOURCE_DIR:?}" || exit 1
where=(src include tools tests docs examples bench README.md)
fail=0

# Spelled in two pieces, so that this file does not match itself.
notes='(FORMATS|RESEARCH)''\.md'
if grep -rnE "$notes" "${where[@]}"; then
	echo "FAIL: the lines above cite notes that are not in the repository; cite docs/ instead"
	fail=1
fi

pages=$(grep -rhoE 'docs/[A-Za-z0-9_./-]+\.md' "${where[@]}" | sort -u)
for page in $pages; do
	if [ ! -f "$page" ]; then
		echo "FAIL: $page is cited but does not exist:"
		grep -rnF "$page" "${where[@]}" | head -5
		fail=1
	fi
done

# Heading text as a literal, for grep -E.
ere_quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

while IFS= read -r cite; do
	[ -n "$cite" ] || continue
	page=${cite%%,*}
	section=${cite#*\"}
	section=${section%\"}
	[ -f "$page" ] || continue	# reported above
	if grep -qiE "^#+ +$(ere_quote "$section")" "$page" || grep -qiF "**$section" "$page"; then
		continue
	fi
	echo "FAIL: $page has no section \"$section\":"
	grep -rnF "$cite" "${where[@]}" | head -5
	fail=1
done < <(grep -rhoE 'docs/[A-Za-z0-9_./-]+\.md, *"[^"]+"' "${where[@]}" | sort -u)

[ "$fail" -eq 0 ] && echo "ok: $(echo "$pages" | wc -w) cited pages, all there"
exit "$fail"
