# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What the scripts that run `cmake --install` of the build tree share (install.sh,
# doc_examples.sh; tests/CMakeLists.txt runs one of them at a time). Sourced, not a test:
# the test glob takes tests/scripts/*.sh only.
#
# cmake --install rewrites the tree's install_manifest.txt: the one of `make install` is put
# back, so that `make uninstall` still removes what it installed.
#
#   manifest_keep BUILD DIR   save BUILD's install_manifest.txt (if any) in DIR
#   manifest_put_back         put it back as it was (none: none), from an EXIT trap

manifest_keep() {
	manifest=$1/install_manifest.txt
	manifest_saved=$2/manifest.saved
	if [ -f "$manifest" ]; then cp "$manifest" "$manifest_saved"; fi
}

manifest_put_back() {
	if [ -f "$manifest_saved" ]; then cp "$manifest_saved" "$manifest"; else rm -f "$manifest"; fi
}
