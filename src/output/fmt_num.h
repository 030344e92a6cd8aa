/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Digits of an integer, written by hand for the text output's hot path
 * (trev_seq_vprintf() and the line prefix), where printf cost more than
 * the rest of a line. Each writer fills a buffer backwards and returns
 * where its digits start, so that the caller knows their count before it
 * pads them.
 */
#ifndef TREV_FMT_NUM_H
#define TREV_FMT_NUM_H

#include <stddef.h>
#include <string.h>

/* "00" "01" ... "99": two decimal digits per division. */
static const char fmt_digits2[200] =
	"00010203040506070809" "10111213141516171819" "20212223242526272829"
	"30313233343536373839" "40414243444546474849" "50515253545556575859"
	"60616263646566676869" "70717273747576777879" "80818283848586878889"
	"90919293949596979899";

/* How many decimal digits @v has: 1 for 0, 20 at most. */
static inline int fmt_udec_len(unsigned long long v)
{
	static const unsigned long long pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/*
	 * log10(2) ~ 1233 / 4096: n is the digit count of 2^bits - 1 less one,
	 * so 10^n <= v has n + 1 digits. (v | 1 has the digits of v, and is not 0.)
	 */
	unsigned long long w = v | 1;
	int n = ((64 - __builtin_clzll(w)) * 1233) >> 12;

	return n + (w >= pow10[n]);
}

/* How many hex digits @v has: 1 for 0, 16 at most. */
static inline int fmt_uhex_len(unsigned long long v)
{
	return (64 - __builtin_clzll(v | 1) + 3) / 4;
}

/* Decimal digits of @v, ending just before @end; returns the first. "0" for 0. */
static inline char *fmt_udec_rev(char *end, unsigned long long v)
{
	unsigned int w;

	while (v > 0xffffffffu) {
		unsigned int i = (unsigned int)(v % 100) * 2;

		v /= 100;
		end -= 2;
		memcpy(end, &fmt_digits2[i], 2);
	}
	/* The rest in 32 bits: cheaper divisions, and most values never leave them. */
	w = (unsigned int)v;
	while (w >= 100) {
		unsigned int i = w % 100 * 2;

		w /= 100;
		end -= 2;
		memcpy(end, &fmt_digits2[i], 2);
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, &fmt_digits2[w * 2], 2);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
}

/* Hex digits of @v from @digits ("0123456789abcdef" or upper case), as fmt_udec_rev(). */
static inline char *fmt_uhex_rev(char *end, unsigned long long v, const char *digits)
{
	do {
		*--end = digits[v & 0xf];
		v >>= 4;
	} while (v);
	return end;
}

/*
 * @v in decimal at @p, right-aligned in @width with @pad in front (printf's
 * "%*llu" or "%0*llu"); returns the end. @p must have room for
 * max(@width, fmt_udec_len(@v)) bytes.
 */
static inline char *fmt_udec(char *p, unsigned long long v, int width, char pad)
{
	int n = fmt_udec_len(v);

	for (; width > n; width--)
		*p++ = pad;
	fmt_udec_rev(p + n, v);
	return p + n;
}

#endif /* TREV_FMT_NUM_H */
