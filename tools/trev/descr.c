/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decoding event descriptors out of an object's image (descr.h): the
 * offsets of every layout this trev reads, and no read that a reader has
 * not bounded.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <trev/trace_event.h>

#include "base/abi_v0.h"
#include "descr.h"

/* Files are read only in the layouts of 64-bit targets, as this trev is built. */
_Static_assert(sizeof(void *) == 8, "trev list decodes 64-bit layouts only");

/* Where one ABI keeps what `trev list` needs. */
struct descr_layout {
	size_t call_size, class_size;		/* the least a descriptor may have */
	size_t call_klass, call_name, call_flags;
	size_t class_system;
};

static const struct descr_layout descr_layouts[] = {
	[0] = {
		sizeof(struct trev_v0_event_call), sizeof(struct trev_v0_event_class),
		offsetof(struct trev_v0_event_call, klass),
		offsetof(struct trev_v0_event_call, name),
		offsetof(struct trev_v0_event_call, flags),
		offsetof(struct trev_v0_event_class, system),
	},
	[TREV_ABI_VERSION] = {
		sizeof(struct trev_event_call), sizeof(struct trev_event_class),
		offsetof(struct trev_event_call, klass),
		offsetof(struct trev_event_call, name),
		offsetof(struct trev_event_call, flags),
		offsetof(struct trev_event_class, system),
	},
};

_Static_assert(TREV_ABI_VERSION == 1, "descr_layouts[] lacks a layout");

/*
 * The header at @vaddr: its ABI and size (ABI 0: no header, the size is the
 * v0 struct's, @v0_size). Return: 0, -EPROTO, -EINVAL or -EFAULT.
 */
static int descr_hdr(const struct descr_mem *m, uint64_t vaddr, size_t v0_size,
		     unsigned int *abi, unsigned int *size)
{
	struct trev_abi_hdr h;

	if (m->read(m->ctx, vaddr, &h, sizeof(h)))
		return -EFAULT;
	if (h.magic != TREV_ABI_MAGIC) {
		*abi = 0;
		*size = (unsigned int)v0_size;
		return 0;
	}
	*abi = h.abi;
	*size = h.size;
	if (h.abi > TREV_ABI_VERSION)
		return -EPROTO;
	return h.abi == 0 ? -EINVAL : 0;
}

/*
 * A NUL-terminated string at @vaddr, of at most @size bytes with the NUL.
 * Read 32 bytes at a time, and byte by byte where the image ends.
 */
static int descr_str(const struct descr_mem *m, uint64_t vaddr, char *buf, size_t size)
{
	for (size_t i = 0; i < size;) {
		size_t n = size - i < 32 ? size - i : 32;

		if (vaddr + i + n < vaddr)
			return -EFAULT;
		if (m->read(m->ctx, vaddr + i, &buf[i], n)) {
			n = 1;
			if (m->read(m->ctx, vaddr + i, &buf[i], n))
				return -EFAULT;
		}
		if (memchr(&buf[i], '\0', n))
			return 0;
		i += n;
	}
	return -EFAULT;		/* longer than any name trev registers */
}

int descr_event(const struct descr_mem *m, uint64_t call, struct descr_event *ev)
{
	const struct descr_layout *l;
	unsigned int kabi, ksize, flags;
	uint64_t klass, sys, nm;
	unsigned char probe;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ret = descr_hdr(m, call, sizeof(struct trev_v0_event_call), &ev->abi, &ev->size);
	if (ret)
		return ret;
	l = &descr_layouts[ev->abi];
	if (ev->size < l->call_size)
		return -EINVAL;
	/* The whole descriptor is in the image, not only the fields read. */
	if (call + ev->size - 1 < call || m->read(m->ctx, call + ev->size - 1, &probe, 1))
		return -EFAULT;
	if (m->read_ptr(m->ctx, call + l->call_klass, &klass) ||
	    m->read_ptr(m->ctx, call + l->call_name, &nm) ||
	    m->read(m->ctx, call + l->call_flags, &flags, sizeof(flags)))
		return -EFAULT;
	ret = descr_hdr(m, klass, sizeof(struct trev_v0_event_class), &kabi, &ksize);
	if (ret == -EFAULT)
		return ret;
	if (ret || kabi != ev->abi || ksize < l->class_size)
		return -EINVAL;
	if (klass + ksize - 1 < klass || m->read(m->ctx, klass + ksize - 1, &probe, 1) ||
	    m->read_ptr(m->ctx, klass + l->class_system, &sys) ||
	    descr_str(m, sys, ev->system, sizeof(ev->system)) ||
	    descr_str(m, nm, ev->name, sizeof(ev->name)))
		return -EFAULT;
	ev->size = ev->abi ? ev->size : 0;
	ev->flags = flags;
	return 0;
}
