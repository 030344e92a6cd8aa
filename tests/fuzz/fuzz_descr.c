/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for `trev list FILE`'s event descriptor decoding
 * (tools/trev/descr.c): any image and any descriptor address, in either
 * layout or none, decode to 0 with two NUL-terminated names, or to -EPROTO,
 * -EINVAL or -EFAULT, never with a read outside the image.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "descr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The image: the input after its first two bytes, mapped at IMAGE_BASE. */
#define IMAGE_BASE	0x1000u

struct image {
	const uint8_t *bytes;
	size_t len;
};

static int img_read(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	const struct image *im = ctx;

	if (vaddr < IMAGE_BASE || vaddr - IMAGE_BASE > im->len ||
	    len > im->len - (vaddr - IMAGE_BASE))
		return -EFAULT;
	memcpy(buf, im->bytes + (vaddr - IMAGE_BASE), len);
	return 0;
}

/* Pointers are the words in place (no relocations); 0 stands for another object's symbol. */
static int img_read_ptr(void *ctx, uint64_t vaddr, uint64_t *out)
{
	if (img_read(ctx, vaddr, out, sizeof(*out)))
		return -EFAULT;
	return *out ? 0 : -ENOENT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im;
	struct descr_mem mem = { &im, img_read, img_read_ptr };
	struct descr_event ev;
	uint16_t at;
	int ret;

	if (size < 2)
		return 0;
	memcpy(&at, data, sizeof(at));
	im.bytes = data + 2;
	im.len = size - 2;
	ret = descr_event(&mem, IMAGE_BASE + at, &ev);
	if (ret == 0) {
		if (!memchr(ev.system, '\0', sizeof(ev.system)) ||
		    !memchr(ev.name, '\0', sizeof(ev.name)))
			abort();
	} else if (ret != -EPROTO && ret != -EINVAL && ret != -EFAULT) {
		abort();
	}
	return 0;
}
