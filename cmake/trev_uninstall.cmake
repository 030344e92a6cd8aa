# SPDX-License-Identifier: LGPL-2.1-or-later
#
# cmake -DTREV_MANIFEST=BUILD/install_manifest.txt -P trev_uninstall.cmake (make uninstall):
# removes every file the manifest lists (the last `cmake --install` from that build tree),
# then trev's own directories (include/trev, lib/cmake/trev) that are left empty. A listed file that is already gone is said, not an
# error; one that cannot be removed is.
if(NOT TREV_MANIFEST)
	message(FATAL_ERROR "uninstall: TREV_MANIFEST (the install_manifest.txt) is not set")
endif()
if(NOT EXISTS "${TREV_MANIFEST}")
	message(FATAL_ERROR "uninstall: ${TREV_MANIFEST} does not exist: nothing was installed "
		"from this build tree (make install writes it)")
endif()

file(STRINGS "${TREV_MANIFEST}" files)
set(dirs "")
set(failed 0)
foreach(f IN LISTS files)
	if(f STREQUAL "")
		continue()
	endif()
	get_filename_component(dir "${f}" DIRECTORY)
	list(APPEND dirs "${dir}")
	if(NOT EXISTS "${f}" AND NOT IS_SYMLINK "${f}")
		message(STATUS "Not there: ${f}")
		continue()
	endif()
	message(STATUS "Removing: ${f}")
	file(REMOVE "${f}")
	if(EXISTS "${f}" OR IS_SYMLINK "${f}")
		message(SEND_ERROR "uninstall: ${f} could not be removed")
		set(failed 1)
	endif()
endforeach()

# trev's own directories (include/trev and below, lib/cmake/trev), deepest first, when empty.
list(REMOVE_DUPLICATES dirs)
list(FILTER dirs INCLUDE REGEX "(/include/trev(/.*)?|/cmake/trev)$")
list(SORT dirs ORDER DESCENDING)
foreach(dir IN LISTS dirs)
	file(GLOB left "${dir}/*" "${dir}/.*")
	if(IS_DIRECTORY "${dir}" AND NOT left)
		message(STATUS "Removing: ${dir}/")
		file(REMOVE_RECURSE "${dir}")	# empty: nothing but the directory
	endif()
endforeach()
if(failed)
	message(FATAL_ERROR "uninstall: some files could not be removed (above)")
endif()
