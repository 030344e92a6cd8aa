#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# trev list FILE in every ABI it knows (docs/events.md, "ABI"): a program built against the
# frozen headers of trev 0.1.0 (ABI 0, descriptors without a header) lists the same events as
# its running self registers; a shared object with descriptors of ABI 99 is refused with a
# message that names the ABI, and one whose header is broken too; neither crashes.
set -uo pipefail
export LC_ALL=C

B=$TREV_BUILD_DIR
trev=$B/tools/trev/trev
. "$TREV_SOURCE_DIR/tests/control/cli_lib.sh"
cli_setup
out=$T/out
errf=$T/err

# ---- ABI 0 ----------------------------------------------------------------------------------
run 0 "$trev" list "$B/tests/test_abi_v0"
[ "$(sort "$out")" = "$(printf 'abi_v0:abi_v0_fn\nabi_v0:abi_v0_ints\nabi_v0:abi_v0_mode\nabi_v0:abi_v0_mode_raw\nabi_v0:abi_v0_str')" ] ||
	fail "test_abi_v0: $(cat "$out")"
echo "ok: an ABI 0 program"

# ---- ABI 1 beside it ------------------------------------------------------------------------
run 0 "$trev" list "$B/tests/libtrev_dl_module.so"
[ "$(sort "$out")" = "$(printf 'dl_test:dl_hello\ndl_test:dl_mode\ndl_test:dl_value')" ] || fail "dl_module"
echo "ok: an ABI 1 shared object"

# ---- a later ABI ----------------------------------------------------------------------------
mod=$B/tests/libtrev_abi_future_mod.so
run 1 "$trev" list "$mod"
err_has "^trev: list: $mod: the event descriptor at 0x[0-9a-f]+ is of ABI 99; this trev reads ABI 0 to 1 \(use a newer trev\)$"
echo "ok: ABI 99 refused"

# ---- broken headers --------------------------------------------------------------------------
# Every ABI 99 header of the object, patched in a copy of the file to say ABI 1 and a size.
patch() {
	python3 - "$mod" "$T/broken.so" "$1" <<'PY' || fail "no ABI 99 header in $mod"
import struct, sys
data = open(sys.argv[1], 'rb').read()
old = struct.pack('<HHI', 128, 99, 0x76657274)
assert old in data
open(sys.argv[2], 'wb').write(data.replace(old, struct.pack('<HHI', int(sys.argv[3]), 1, 0x76657274)))
PY
}
# Smaller than the ABI 1 layout.
patch 8
run 1 "$trev" list "$T/broken.so"
err_has "^trev: list: $T/broken.so: the event descriptor at 0x[0-9a-f]+ has a broken ABI header \(ABI 1, size 8\)$"
# Running past the end of the file's data.
patch 65535
run 1 "$trev" list "$T/broken.so"
err_has "^trev: list: $T/broken.so: the __trev_events entry at 0x[0-9a-f]+ cannot be read$"
echo "ok: broken headers refused"
echo "all ABI list checks passed"
