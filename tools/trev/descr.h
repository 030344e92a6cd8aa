/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event descriptors of an object file, decoded for `trev list FILE` in
 * every layout this trev knows (ABI 0 and TREV_ABI_VERSION, trev/abi.h),
 * through a reader of the object's memory image: the file is untrusted, so
 * every read is bounded by the reader and every size by the decoder.
 */
#ifndef TREV_CLI_DESCR_H
#define TREV_CLI_DESCR_H

#include <stddef.h>
#include <stdint.h>

/* The loaded image of an object, as far as the file tells it. */
struct descr_mem {
	void *ctx;
	/* @len bytes at @vaddr as they are in the file. Return: 0 or -EFAULT. */
	int (*read)(void *ctx, uint64_t vaddr, void *buf, size_t len);
	/*
	 * The pointer at @vaddr as the loaded object sees it (relocated, load
	 * base 0). Return: 0, -ENOENT (another object's symbol) or -EFAULT.
	 */
	int (*read_ptr)(void *ctx, uint64_t vaddr, uint64_t *out);
};

struct descr_event {
	char system[256];		/* TRACE_SYSTEM */
	char name[256];			/* the event */
	unsigned int flags;		/* TREV_EVENT_FL_* */
	unsigned int abi;		/* the layout it was read in */
	unsigned int size;		/* its header's size (0 for ABI 0) */
};

/*
 * descr_event() - decode the event descriptor at @call
 * @ev: filled; on -EPROTO only @ev->abi and @ev->size
 *
 * A descriptor is of ABI 0 unless bytes 4-7 hold TREV_ABI_MAGIC; then bytes
 * 0-1 are its size and 2-3 its ABI (trev/abi.h). Its class must be of the
 * same ABI.
 * Return: 0; -EPROTO for an ABI this trev does not know; -EINVAL for a
 * broken header (a size too small, a class of another ABI); -EFAULT for a
 * pointer that leads outside the file or a string without its NUL there.
 */
int descr_event(const struct descr_mem *m, uint64_t call, struct descr_event *ev);

#endif /* TREV_CLI_DESCR_H */
