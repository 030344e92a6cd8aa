/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for trace_printk's binary arguments: any format compiles
 * or is refused, and any format with any argument area formats without
 * reading outside the area, leaving the trev_seq terminated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Compiled into this target, not linked from libtrev.a, so that libFuzzer
 * sees the coverage of the decoder and formatter (the library is built
 * without -fsanitize=fuzzer).
 */
#include "output/bprint.c"
#include "write/bprint_save.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FMT_MAX	512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trev_seq seq;
	_Alignas(8) unsigned char spec[TREV_BPRINT_SPEC_SIZE];
	const uint8_t *nul = memchr(data, '\0', size < FMT_MAX ? size : FMT_MAX);
	size_t fmt_len = nul ? (size_t)(nul - data) : (size < FMT_MAX ? size : FMT_MAX);
	size_t args_len = nul ? size - fmt_len - 1 : 0;
	char *fmt;
	void *args;
	int ret;

	/* The format up to the first NUL, the argument area after it: exact-size copies. */
	fmt = malloc(fmt_len + 1);
	args = malloc(args_len ? args_len : 1);
	if (!fmt || !args)
		abort();
	memcpy(fmt, data, fmt_len);
	fmt[fmt_len] = '\0';
	if (args_len)
		memcpy(args, nul + 1, args_len);

	ret = trev__bprint_compile(fmt, spec);
	if (ret != 0 && ret != -22)
		abort();

	trev_seq_init(&seq);
	/* Leave a little room sometimes, so that the full path runs too. */
	if (fmt_len & 1) {
		memset(seq.buffer, 'x', TREV_SEQ_SIZE - 64);
		seq.len = TREV_SEQ_SIZE - 64;
		seq.buffer[seq.len] = '\0';
	}
	ret = trev__bprint_format(&seq, fmt, args, args_len);
	if (ret != 0 && ret != -1)
		abort();
	if (seq.len >= TREV_SEQ_SIZE || seq.buffer[seq.len] != '\0')
		abort();
	free(args);
	free(fmt);
	return 0;
}
