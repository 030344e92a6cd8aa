/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening an output file the user named without being led elsewhere by
 * another user's symlink: the rule of the kernel's fs.protected_symlinks,
 * applied whatever the sysctl says, and the last step of the open made
 * without following a link the walk did not decide to follow.
 */
#ifndef TREV_BASE_OUT_FILE_H
#define TREV_BASE_OUT_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * trev__out_open() - open(@path, @flags, @mode) for an output file
 * @flags: O_WRONLY or O_RDWR with O_CREAT, O_TRUNC ... (O_CLOEXEC is added)
 * @why:   receives a sentence when a symlink is refused ("" otherwise)
 *
 * The path is walked one name at a time. A symlink on the way (the last
 * name too) is followed unless it lies in a sticky directory writable by
 * others and belongs neither to us (the effective uid) nor to the
 * directory's owner: a link another user planted in /tmp, which the
 * kernel refuses with fs.protected_symlinks=1 and follows with 0. The last
 * name is opened with O_NOFOLLOW in the directory the walk reached, so a
 * link put there after the walk is not followed (the walk runs again, a
 * few times, and judges it).
 *
 * Context: any thread; not async-signal-safe (it allocates nothing, but
 * formats @why).
 * Return: the descriptor, or a negative errno: -EACCES for a refused
 * link (with @why), -ELOOP for too many links, or the open's error.
 */
int trev__out_open(const char *path, int flags, mode_t mode, char *why, size_t why_size);

/*
 * trev__out_check() - whether trev__out_open() would follow every link
 * on @path's way: the same walk, opening nothing. A missing last name is
 * fine (it would be created). Return: 0, or a negative errno as above.
 */
int trev__out_check(const char *path, char *why, size_t why_size);

#endif /* TREV_BASE_OUT_FILE_H */
