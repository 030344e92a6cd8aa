/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ABI header of a descriptor (abi_hdr.h). */
#include <errno.h>
#include <string.h>

#include <trev/trace_event.h>

#include "base/abi_hdr.h"

int trev__abi_of(const void *desc, size_t min_size, unsigned int *abi)
{
	struct trev_abi_hdr h;

	memcpy(&h, desc, sizeof(h));
	if (h.magic != TREV_ABI_MAGIC) {
		*abi = 0;		/* it starts with a pointer: ABI 0 */
		return 0;
	}
	*abi = h.abi;
	if (h.abi > TREV_ABI_VERSION)
		return -EPROTO;
	/* A header never says 0; every field of its version must be there. */
	if (h.abi == 0 || h.size < min_size)
		return -EINVAL;
	return 0;
}
