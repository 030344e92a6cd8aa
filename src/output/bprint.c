/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk()'s binary arguments: the kernel's vbin_printf() (save the
 * arguments of a format into a u32 buffer, at record time) and bstr_printf()
 * (format them, at read time), with the kernel's printf semantics.
 *
 * The argument area (the u32 buf[] of an ftrace:bprint record), as
 * vbin_printf() fills it: each argument in format order, at the first offset
 * of its alignment; the total rounded up to 4 bytes.
 *
 *   CONVERSION                          SIZE           ALIGN  CONTENT
 *   '*' width or precision              4              4      int
 *   %c, %hh[diouxX]                     1              1      the low byte
 *   %h[diouxX]                          2              2      the low 2 bytes
 *   %[diouxX]                           4              4      int
 *   %l.. %z.. %t.. %p %px %pK %ps %pS   sizeof(long)   4      8-byte values: the
 *   %pe                                                       u64's bytes, as two u32
 *   %ll.. %L.. (%j..)                   8              4
 *   %s                                  strlen + 1     1      the text and its NUL
 *   %p<other letters>                   strlen + 1     1      the text, formatted at
 *                                                             record time, and its NUL
 *
 * Where this differs from the kernel (kernel: lib/vsprintf.c):
 *  - %p and %pK print the raw address as %px does ("00007f..."); the kernel
 *    hashes %p and hides %pK. A userspace process has nothing to hide from
 *    itself.
 *  - %pB (symbol of a return address): the kernel formats it at record time;
 *    here the record holds the address as text ("0x7f..."), the layout the
 *    kernel uses, and the symbol is looked up at read time (a lookup is not
 *    async-signal-safe). Other readers print the address.
 *  - record-time extensions formatted here: %ph[CDN], %pb, %pbl, %pM[FR],
 *    %pm[R], %pI4/%pi4[hnbl], %pI6, %pi6, %pI6c, %pIS/%piS[pcfs], %pU[bBlL],
 *    %pF (a plain pointer in 6.1), %pf ("(%pf?)"). Every other %p<letters>
 *    is saved as the kernel saves it, as text, and that text is the raw
 *    address as %px prints it.
 *  - %pe (error pointer) prints the errno name from the C library.
 *  - 'j' (intmax_t) is taken as 8 bytes; the kernel stops at it as invalid.
 *  - a string that fills the area to its last byte is copied; the kernel's
 *    vbin_printf() leaves it out (it tests str + len < end) yet counts it.
 *  - signed arguments narrower than 8 bytes are sign-extended from their
 *    size; the kernel's bstr_printf() does not for %ld and %zd on 32-bit.
 *
 * Where the kernel's printf differs from glibc's (what the tests cannot
 * compare with snprintf): %#x and %#o of 0 print "0x0" and "0"; a precision
 * does not cancel the 0 flag ("%08.3d" of 5 is "00000005"); a precision of 0
 * still prints the digit 0; "%#.3o" of 8 is "0010"; a '.' without digits is
 * no precision at all; a negative '*' precision is 0 (glibc: none); %c
 * ignores the 0 flag; %p is 16 digits without "0x"; no %n, floating
 * point, %m, %ls (compile refuses them; %lc is a plain %c).
 *
 * Where libtraceevent 1.7.1 (trace-cmd report) reads these records
 * differently (its make_bprint_args() and print_arg_pointer()):
 *  - it does not know the flags '-', ' ' and '+' (1.7.3 learned '+'), the
 *    lengths 'h', 'hh', 't', 'j', nor %c (1.7.3 learned it): from such a
 *    conversion on, it reads the arguments out of step.
 *  - it aligns every number to 4 bytes, char and short included.
 *  - %p prints as glibc's %p ("0x7f...", "(nil)"), %px likewise followed by
 *    a literal 'x'; the kernel prints 16 hex digits without 0x.
 *  - %pS prints "name+0x1a", without "/0x<size>", and only for functions
 *    given to it (tep_register_function()).
 *  - %pF and %pf: it reads a pointer and prints a symbol (kernels before
 *    5.5); 6.1 saves them as text, so the arguments after them go astray.
 *  - %p<letters> other than s S x f F: it takes the argument as text if its
 *    first byte is printable, else as a pointer; the kernel decides by the
 *    letter. %pK and %pe are pointers in the record, so a pointer whose low
 *    byte is printable reads as text, and the arguments after it go astray.
 *    The record-time texts (%pM, %pI4, %*ph ...) print the same.
 *  - every number is printed with glibc's printf: see above.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "output/bprint.h"
#include "output/bprint_internal.h"
#include "sym/symbols.h"

/* Digits of a width or precision, capped so that the int never overflows. */
static int bp_atoi(const char **s, int max)
{
	int v = 0;

	while (bp_isdigit(**s)) {
		if (v <= max)
			v = v * 10 + (*(*s)++ - '0');
		else
			(*s)++;
	}
	return v > max ? max : v;
}

/*
 * Decode the piece of @fmt at its start into @c; return the format after it.
 * As the kernel's format_decode(), including its quirks: '.' alone is no
 * precision, "hh" and "ll" are the only doubled lengths, and a conversion
 * letter it does not know is BP_INVALID.
 */
const char *trev__bp_decode(const char *fmt, struct bp_conv *c)
{
	const char *start = fmt;
	char q = 0;

	c->flags = 0;
	c->width = -1;
	c->precision = -1;
	c->width_star = 0;
	c->prec_star = 0;
	c->width_star_p = 0;
	c->prec_star_p = 0;
	c->qualifier = 0;
	if (*fmt != '%') {
		while (*fmt && *fmt != '%')
			fmt++;
		c->type = fmt == start ? BP_END : BP_TEXT;
		c->text = start;
		c->len = (size_t)(fmt - start);
		return fmt;
	}
	for (;;) {
		switch (*++fmt) {
		case '-':
			c->flags |= BP_LEFT;
			continue;
		case '+':
			c->flags |= BP_PLUS;
			continue;
		case ' ':
			c->flags |= BP_SPACE;
			continue;
		case '#':
			c->flags |= BP_SPECIAL;
			continue;
		case '0':
			c->flags |= BP_ZEROPAD;
			continue;
		}
		break;
	}
	if (bp_isdigit(*fmt)) {
		c->width = bp_atoi(&fmt, BP_WIDTH_MAX);
	} else if (*fmt == '*') {
		c->width_star = 1;
		c->width_star_p = *++fmt == 'p';
	}
	if (*fmt == '.') {
		fmt++;
		if (bp_isdigit(*fmt)) {
			c->precision = bp_atoi(&fmt, BP_PREC_MAX);
		} else if (*fmt == '*') {
			c->prec_star = 1;
			c->prec_star_p = *++fmt == 'p';
		}
	}
	if (*fmt == 'h' || *fmt == 'l' || *fmt == 'L' || *fmt == 'z' || *fmt == 't' ||
	    *fmt == 'j') {
		q = *fmt++;
		if (q == *fmt && (q == 'l' || q == 'h')) {
			q = q == 'l' ? 'L' : 'H';
			fmt++;
		}
	}
	c->qualifier = (unsigned char)q;
	c->base = 10;
	switch (*fmt) {
	case 'c':
		c->type = BP_CHAR;
		return fmt + 1;
	case 's':
		c->type = BP_STR;
		return fmt + 1;
	case '%':
		c->type = BP_PERCENT;
		return fmt + 1;
	case 'p':
		c->type = BP_PTR;
		c->text = ++fmt;
		while (bp_isalnum(*fmt))
			fmt++;
		c->len = (size_t)(fmt - c->text);
		return fmt;
	case 'o':
		c->base = 8;
		break;
	case 'x':
		c->flags |= BP_SMALL;
		/* fall through */
	case 'X':
		c->base = 16;
		break;
	case 'd':
	case 'i':
		c->flags |= BP_SIGN;
		break;
	case 'u':
		break;
	default:
		c->type = BP_INVALID;
		return fmt;
	}
	c->type = BP_NUM;
	switch (q) {
	case 'H':
		c->size = 1;
		break;
	case 'h':
		c->size = 2;
		break;
	case 'l':
		c->size = sizeof(long);
		break;
	case 'z':
		c->size = sizeof(size_t);
		break;
	case 't':
		c->size = sizeof(ptrdiff_t);
		break;
	case 'L':
	case 'j':
		c->size = 8;
		break;
	default:
		c->size = 4;
	}
	return fmt + 1;
}

/* ------------------------------------------------------------------ */
/* Text output: the kernel's buf/end writers, counting past the end     */


static inline void out_c(struct bp_out *o, char c)
{
	if (o->pos < o->cap)
		o->buf[o->pos] = c;
	o->pos++;
}

static void out_mem(struct bp_out *o, const char *s, size_t n)
{
	if (o->pos < o->cap)
		memcpy(o->buf + o->pos, s, n < o->cap - o->pos ? n : o->cap - o->pos);
	o->pos += n;
}

static void out_pad(struct bp_out *o, char c, long n)
{
	if (n <= 0)
		return;
	if (o->pos < o->cap)
		memset(o->buf + o->pos, c, (size_t)n < o->cap - o->pos ? (size_t)n : o->cap - o->pos);
	o->pos += (size_t)n;
}

/* The kernel's number(): every flag as it treats it (see the top of the file). */
static void bp_number(struct bp_out *o, unsigned long long num, unsigned int flags, int width,
		      int precision, int base)
{
	static const char digits[] = "0123456789ABCDEF";
	char tmp[3 * sizeof(num)];
	char locase = (flags & BP_SMALL) ? 0x20 : 0;
	int need_pfx = (flags & BP_SPECIAL) && base != 10;
	int is_zero = num == 0;
	long fw = width;
	int i = 0;
	char sign = 0;

	if (flags & BP_LEFT)
		flags &= ~BP_ZEROPAD;
	if (flags & BP_SIGN) {
		if ((long long)num < 0) {
			sign = '-';
			num = -num;
			fw--;
		} else if (flags & BP_PLUS) {
			sign = '+';
			fw--;
		} else if (flags & BP_SPACE) {
			sign = ' ';
			fw--;
		}
	}
	if (need_pfx) {
		if (base == 16)
			fw -= 2;
		else if (!is_zero)
			fw--;
	}
	do {
		tmp[i++] = (char)(digits[num % (unsigned int)base] | locase);
		num /= (unsigned int)base;
	} while (num);
	if (i > precision)
		precision = i;
	fw -= precision;
	if (!(flags & (BP_ZEROPAD | BP_LEFT))) {
		out_pad(o, ' ', fw);
		fw = 0;
	}
	if (sign)
		out_c(o, sign);
	if (need_pfx) {
		if (base == 16 || !is_zero)
			out_c(o, '0');
		if (base == 16)
			out_c(o, (char)('X' | locase));
	}
	if (!(flags & BP_LEFT)) {
		out_pad(o, (flags & BP_ZEROPAD) ? '0' : ' ', fw);
		fw = 0;
	}
	out_pad(o, '0', precision - i);
	while (--i >= 0)
		out_c(o, tmp[i]);
	out_pad(o, ' ', fw);
}

/* The kernel's string_nocheck() + widen_string(): @s has at most @max bytes. */
static void bp_string(struct bp_out *o, const char *s, size_t max, const struct bp_conv *c)
{
	size_t n = c->precision >= 0 && (size_t)c->precision < max ? (size_t)c->precision : max;
	long pad;

	n = strnlen(s, n);
	pad = (long)c->width - (long)n;
	if (!(c->flags & BP_LEFT))
		out_pad(o, ' ', pad);
	out_mem(o, s, n);
	if (c->flags & BP_LEFT)
		out_pad(o, ' ', pad);
}

/* The kernel's error_string(): a message cut to 2 * sizeof(void *) by default. */
static void bp_error_string(struct bp_out *o, const char *msg, const struct bp_conv *c)
{
	struct bp_conv e = *c;

	if (e.precision == -1)
		e.precision = 2 * sizeof(void *);
	bp_string(o, msg, SIZE_MAX, &e);
}

/* The kernel's check_pointer_msg(): NULL, the first page and error values. */
const char *trev__bp_bad_pointer(const void *ptr)
{
	if (!ptr)
		return "(null)";
	if ((uintptr_t)ptr < BP_PAGE_SIZE || (uintptr_t)ptr >= (uintptr_t)-BP_MAX_ERRNO)
		return "(efault)";
	return NULL;
}

/* The kernel's pointer_string(): %px. */
static void bp_pointer_string(struct bp_out *o, uintptr_t ptr, const struct bp_conv *c)
{
	unsigned int flags = c->flags | BP_SMALL;
	int width = c->width;

	if (width == -1) {
		width = 2 * sizeof(void *);
		flags |= BP_ZEROPAD;
	}
	bp_number(o, ptr, flags, width, c->precision, 16);
}

/* ------------------------------------------------------------------ */
/* Record-time %p extensions (formatted into the record as text)        */

static const char hex_lo[] = "0123456789abcdef";
static const char hex_up[] = "0123456789ABCDEF";

static char *hex_byte(char *p, unsigned char b, const char *hex)
{
	*p++ = hex[b >> 4];
	*p++ = hex[b & 15];
	return p;
}

/* %ph, %phC, %phD, %phN: at most 64 bytes, the field width is the count. */
static void bp_hex_string(struct bp_out *o, const unsigned char *addr, const struct bp_conv *c)
{
	const char *ext = c->text;
	char sep = ext[1] == 'C' ? ':' : ext[1] == 'D' ? '-' : ext[1] == 'N' ? 0 : ' ';
	int len = c->width > 0 ? (c->width < 64 ? c->width : 64) : 1;

	for (int i = 0; i < len; i++) {
		char b[2];

		hex_byte(b, addr[i], hex_lo);
		out_mem(o, b, 2);
		if (sep && i != len - 1)
			out_c(o, sep);
	}
}

static inline int bp_test_bit(const unsigned long *map, long bit)
{
	const long bits = 8 * sizeof(long);

	return (map[bit / bits] >> (bit % bits)) & 1;
}

/* %pb: 32-bit hex chunks, most significant first; the width is the bit count. */
static void bp_bitmap_string(struct bp_out *o, const unsigned long *map, const struct bp_conv *c)
{
	const long bits = 8 * sizeof(long);
	long nr_bits = c->width > 0 ? c->width : 0;
	int chunk = nr_bits % 32 ? (int)(nr_bits % 32) : 32;
	int first = 1;

	for (long i = (nr_bits + 31) / 32 * 32 - 32; i >= 0; i -= 32) {
		unsigned long long val = (map[i / bits] >> (i % bits)) & ((1ull << chunk) - 1);

		if (!first)
			out_c(o, ',');
		first = 0;
		bp_number(o, val, BP_SMALL | BP_ZEROPAD, (chunk + 3) / 4, -1, 16);
		chunk = 32;
	}
}

/* %pbl: ranges of set bits, "0-3,8". */
static void bp_bitmap_list_string(struct bp_out *o, const unsigned long *map,
				  const struct bp_conv *c)
{
	long nr_bits = c->width > 0 ? c->width : 0;
	int first = 1;

	for (long bit = 0; bit < nr_bits; bit++) {
		long top;

		if (!bp_test_bit(map, bit))
			continue;
		for (top = bit; top + 1 < nr_bits && bp_test_bit(map, top + 1); top++)
			;
		if (!first)
			out_c(o, ',');
		first = 0;
		bp_number(o, (unsigned long long)bit, 0, -1, -1, 10);
		if (top > bit) {
			out_c(o, '-');
			bp_number(o, (unsigned long long)top, 0, -1, -1, 10);
		}
		bit = top;
	}
}

/* %pM, %pMF, %pMR, %pm, %pmR. */
static void bp_mac_string(struct bp_out *o, const unsigned char *addr, const struct bp_conv *c)
{
	const char *ext = c->text;
	char mac[sizeof("xx:xx:xx:xx:xx:xx")], *p = mac;
	char sep = ext[1] == 'F' ? '-' : ':';
	int reversed = ext[1] == 'R';

	for (int i = 0; i < 6; i++) {
		p = hex_byte(p, addr[reversed ? 5 - i : i], hex_lo);
		if (ext[0] == 'M' && i != 5)
			*p++ = sep;
	}
	*p = '\0';
	bp_string(o, mac, SIZE_MAX, c);
}

/* Dotted quad from @addr; 'i' pads each part to 3 digits; @order is [hnbl]. */
static char *bp_ip4(char *p, const unsigned char *addr, int leading_zeros, char order)
{
	int index = 0, step = 1;

	if (order == 'l' || (order == 'h' && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)) {
		index = 3;
		step = -1;
	}
	for (int i = 0; i < 4; i++, index += step) {
		unsigned int v = addr[index];

		if (leading_zeros || v >= 100)
			*p++ = (char)('0' + v / 100);
		if (leading_zeros || v >= 10)
			*p++ = (char)('0' + v / 10 % 10);
		*p++ = (char)('0' + v % 10);
		if (i < 3)
			*p++ = '.';
	}
	*p = '\0';
	return p;
}

/* RFC 5952 form: the longest run (>= 2) of zero words as "::", IPv4 tail. */
static void bp_ip6_compressed(char *p, const unsigned char *a)
{
	int words[8], zlen[8] = { 0 };
	int longest = 1, colonpos = -1, needcolon = 0, range = 8;
	int v4mapped, isatap;

	for (int i = 0; i < 8; i++)
		words[i] = a[2 * i] << 8 | a[2 * i + 1];
	v4mapped = !words[0] && !words[1] && !words[2] && !words[3] && !words[4] &&
		   words[5] == 0xffff;
	isatap = (a[8] | 0x02) == 0x02 && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe;
	if (v4mapped || isatap)
		range = 6;
	for (int i = 0; i < range; i++)
		for (int j = i; j < range && !words[j]; j++)
			zlen[i]++;
	for (int i = 0; i < range; i++) {
		if (zlen[i] > longest) {
			longest = zlen[i];
			colonpos = i;
		}
	}
	for (int i = 0; i < range; i++) {
		if (i == colonpos) {
			if (needcolon || i == 0)
				*p++ = ':';
			*p++ = ':';
			needcolon = 0;
			i += longest - 1;
			continue;
		}
		if (needcolon)
			*p++ = ':';
		for (int shift = 12, lead = 1; shift >= 0; shift -= 4) {
			int d = (words[i] >> shift) & 15;

			if (lead && !d && shift)
				continue;
			lead = 0;
			*p++ = hex_lo[d];
		}
		needcolon = 1;
	}
	if (range == 6) {
		if (needcolon)
			*p++ = ':';
		p = bp_ip4(p, a + 12, 0, 'n');
	}
	*p = '\0';
}

/* Eight 16-bit words in hex, 4 digits each, ':' between them when @colons. */
static char *bp_ip6_full(char *p, const unsigned char *addr, int colons)
{
	for (int i = 0; i < 8; i++) {
		p = hex_byte(p, addr[2 * i], hex_lo);
		p = hex_byte(p, addr[2 * i + 1], hex_lo);
		if (colons && i != 7)
			*p++ = ':';
	}
	*p = '\0';
	return p;
}

/*
 * A number of a sockaddr's text (port, flow label, scope) at @p, with the
 * conversion's width and flags as the kernel's number(p, pend, v, spec) does.
 */
static char *bp_sa_number(char *p, char *pend, unsigned long v, const struct bp_conv *c)
{
	struct bp_out t = { .buf = p, .cap = (size_t)(pend - p) };

	bp_number(&t, v, c->flags, c->width, c->precision, 10);
	return p + (t.pos < t.cap ? t.pos : t.cap);
}

/*
 * %pIS and %piS: a struct sockaddr_in or sockaddr_in6, with the letters
 * after 'S' (every letter up to the first non-letter, as the kernel scans
 * them): p port, c compressed (IPv6, %pI only), f flow label, s scope id,
 * h n b l the byte order of an IPv4 address.
 */
static void bp_ip_sa_string(struct bp_out *o, const void *ptr, const struct bp_conv *c)
{
	const char *ext = c->text;
	int have_p = 0, have_c = 0, have_f = 0, have_s = 0;
	char order = 0;
	char ip[sizeof("[xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:255.255.255.255]") + 3 * 32];
	char *p = ip, *pend = ip + sizeof(ip) - 1;
	sa_family_t family;

	for (const char *e = ext + 2; (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z'); e++) {
		switch (*e) {
		case 'p': have_p = 1; break;
		case 'c': have_c = 1; break;
		case 'f': have_f = 1; break;
		case 's': have_s = 1; break;
		case 'h': case 'n': case 'b': case 'l': order = *e; break;
		}
	}
	memcpy(&family, ptr, sizeof(family));
	if (family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, ptr, sizeof(sin));
		p = bp_ip4(p, (const unsigned char *)&sin.sin_addr.s_addr, ext[0] == 'i', order);
		if (have_p) {
			*p++ = ':';
			p = bp_sa_number(p, pend, ntohs(sin.sin_port), c);
		}
	} else if (family == AF_INET6) {
		const int bracket = have_p || have_s || have_f;
		struct sockaddr_in6 sin6;
		const unsigned char *a;

		memcpy(&sin6, ptr, sizeof(sin6));
		a = sin6.sin6_addr.s6_addr;
		if (bracket)
			*p++ = '[';
		if (ext[0] == 'I' && have_c) {
			bp_ip6_compressed(p, a);
			p += strlen(p);
		} else {
			p = bp_ip6_full(p, a, ext[0] == 'I');
		}
		if (bracket)
			*p++ = ']';
		if (have_p) {
			*p++ = ':';
			p = bp_sa_number(p, pend, ntohs(sin6.sin6_port), c);
		}
		if (have_f && p < pend) {
			*p++ = '/';
			p = bp_sa_number(p, pend, ntohl(sin6.sin6_flowinfo) & 0x0fffffffu, c);
		}
		if (have_s && p < pend) {
			*p++ = '%';
			p = bp_sa_number(p, pend, sin6.sin6_scope_id, c);
		}
	} else {
		bp_error_string(o, "(einval)", c);
		return;
	}
	*p = '\0';
	bp_string(o, ip, SIZE_MAX, c);
}

/* %pI4 %pi4 [hnbl], %pI6 %pi6 %pI6c, %pIS %piS. */
static void bp_ip_string(struct bp_out *o, const unsigned char *addr, const struct bp_conv *c)
{
	const char *ext = c->text;
	char ip[sizeof("xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:255.255.255.255")];

	if (ext[1] == '4') {
		bp_ip4(ip, addr, ext[0] == 'i', ext[2]);
	} else if (ext[1] == '6' && ext[0] == 'I' && ext[2] == 'c') {
		bp_ip6_compressed(ip, addr);
	} else if (ext[1] == '6') {
		bp_ip6_full(ip, addr, ext[0] == 'I');
	} else if (ext[1] == 'S') {
		bp_ip_sa_string(o, addr, c);
		return;
	} else {
		bp_error_string(o, ext[0] == 'i' ? "(%pi?)" : "(%pI?)", c);
		return;
	}
	bp_string(o, ip, SIZE_MAX, c);
}

/* %pU[bBlL]: big-endian (b, default) or little-endian (l) field order. */
static void bp_uuid_string(struct bp_out *o, const unsigned char *addr, const struct bp_conv *c)
{
	static const unsigned char be[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const unsigned char le[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	char uuid[sizeof("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")], *p = uuid;
	char v = c->text[1];
	const unsigned char *index = (v == 'l' || v == 'L') ? le : be;
	const char *hex = (v == 'B' || v == 'L') ? hex_up : hex_lo;

	for (int i = 0; i < 16; i++) {
		p = hex_byte(p, addr[index[i]], hex);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = '\0';
	bp_string(o, uuid, SIZE_MAX, c);
}

static void bp_pointer(struct bp_out *o, const void *ptr, const struct bp_conv *c);

/*
 * A record-time %p<letters> into @o, as the kernel's pointer(), except %pB:
 * its address is kept as text and looked up at read time.
 */
void trev__bp_pointer_record(struct bp_out *o, const void *ptr, const struct bp_conv *c)
{
	if (c->text[0] == 'B') {
		out_mem(o, "0x", 2);
		bp_number(o, (uintptr_t)ptr, BP_SMALL, -1, -1, 16);
		return;
	}
	bp_pointer(o, ptr, c);
}

/* ------------------------------------------------------------------ */
/* Format (read time)                                                   */

/* The reader of a saved argument area; never past @len. */
struct bp_args {
	const unsigned char *buf;
	size_t len;
	size_t off;
};

/* Read @n bytes at the next multiple of @align; 0, or -1 if past the end. */
static int get_bytes(struct bp_args *a, size_t align, void *v, size_t n)
{
	size_t off = (a->off + align - 1) & ~(align - 1);

	if (off > a->len || a->len - off < n)
		return -1;
	memcpy(v, a->buf + off, n);
	a->off = off + n;
	return 0;
}

/* A NUL-terminated string at the current offset; NULL if it runs past the end. */
static const char *get_str(struct bp_args *a, size_t *n)
{
	const unsigned char *s, *nul;

	if (a->off >= a->len)
		return NULL;
	s = a->buf + a->off;
	nul = memchr(s, '\0', a->len - a->off);
	if (!nul)
		return NULL;
	*n = (size_t)(nul - s);
	a->off += *n + 1;
	return (const char *)s;
}

/* An integer of @size bytes, sign-extended when @sign. */
static int get_num(struct bp_args *a, unsigned int size, int sign, unsigned long long *num)
{
	unsigned char u8;
	unsigned short u16;
	unsigned int u32;
	unsigned long long u64;

	switch (size) {
	case 1:
		if (get_bytes(a, 1, &u8, 1))
			return -1;
		*num = sign ? (unsigned long long)(signed char)u8 : u8;
		return 0;
	case 2:
		if (get_bytes(a, 2, &u16, 2))
			return -1;
		*num = sign ? (unsigned long long)(short)u16 : u16;
		return 0;
	case 4:
		if (get_bytes(a, 4, &u32, 4))
			return -1;
		*num = sign ? (unsigned long long)(int)u32 : u32;
		return 0;
	}
	if (get_bytes(a, 4, &u64, 8))
		return -1;
	*num = u64;
	return 0;
}

static int get_ptr(struct bp_args *a, uintptr_t *ptr)
{
	unsigned long long v;

	if (get_num(a, sizeof(void *), 0, &v))
		return -1;
	*ptr = (uintptr_t)v;
	return 0;
}

/* A symbol, as the kernel's symbol_string(): the text, then width and precision. */
static void bp_symbol(struct bp_out *o, uintptr_t addr, enum trev_sym_mode mode,
		      const struct bp_conv *c)
{
	char sym[1024];

	trev__sym_snprint(sym, sizeof(sym), addr, mode);
	bp_string(o, sym, sizeof(sym), c);
}

/* %pe: the errno name of an error pointer, else the pointer. */
static void bp_err_ptr(struct bp_out *o, uintptr_t ptr, const struct bp_conv *c)
{
	const char *name;
	char buf[64];
	int err = (int)(intptr_t)ptr;

	if (ptr < (uintptr_t)-BP_MAX_ERRNO) {
		bp_pointer_string(o, ptr, c);
		return;
	}
	name = strerrorname_np(-err);
	if (name) {
		buf[0] = '-';
		strncpy(buf + 1, name, sizeof(buf) - 2);
		buf[sizeof(buf) - 1] = '\0';
		bp_string(o, buf, sizeof(buf), c);
		return;
	}
	bp_number(o, (unsigned long long)(long long)err, c->flags | BP_SIGN, c->width, c->precision,
		  10);
}

/*
 * The kernel's pointer() (lib/vsprintf.c, 6.1) for the extensions trev
 * knows. Userspace choices: %p, %pK and an unknown letter print the address
 * as %px does (the kernel hashes %p and, with kptr_restrict, hides %pK: a
 * process has nothing to hide from itself); %pSb and %pBb print no build id;
 * %pfw has no fwnode to print and is "(%pf?)" as any other %pf. %pF, which
 * 6.1 no longer knows as a symbol, is a plain pointer as there.
 */
static void bp_pointer(struct bp_out *o, const void *ptr, const struct bp_conv *c)
{
	const char *bad = trev__bp_bad_pointer(ptr);

	switch (c->text[0]) {
	case 'S':
		bp_symbol(o, (uintptr_t)ptr, TREV_SYM_OFFSET, c);
		return;
	case 's':
		bp_symbol(o, (uintptr_t)ptr, TREV_SYM_NAME, c);
		return;
	case 'B':
		bp_symbol(o, (uintptr_t)ptr, TREV_SYM_BACKTRACE, c);
		return;
	case 'h':
		if (c->width == 0)
			return;
		if (bad)
			bp_error_string(o, bad, c);
		else
			bp_hex_string(o, ptr, c);
		return;
	case 'b':
		if (bad)
			bp_error_string(o, bad, c);
		else if (c->text[1] == 'l')
			bp_bitmap_list_string(o, ptr, c);
		else
			bp_bitmap_string(o, ptr, c);
		return;
	case 'M':
	case 'm':
		if (bad)
			bp_error_string(o, bad, c);
		else
			bp_mac_string(o, ptr, c);
		return;
	case 'I':
	case 'i':
		if (bad)
			bp_error_string(o, bad, c);
		else
			bp_ip_string(o, ptr, c);
		return;
	case 'U':
		if (bad)
			bp_error_string(o, bad, c);
		else
			bp_uuid_string(o, ptr, c);
		return;
	case 'e':
		bp_err_ptr(o, (uintptr_t)ptr, c);
		return;
	case 'f':
		bp_error_string(o, "(%pf?)", c);
		return;
	}
	bp_pointer_string(o, (uintptr_t)ptr, c);
}

/* A record-time %p: its text as saved, or for %pB the symbol of the address in it. */
static void bp_pointer_text(struct bp_out *o, const char *text, size_t n, const struct bp_conv *c)
{
	if (c->text[0] == 'B' && n > 2 && n <= 2 + 2 * sizeof(void *) && text[0] == '0' &&
	    text[1] == 'x') {
		uintptr_t addr = 0;
		size_t i;

		for (i = 2; i < n; i++) {
			const char *d = memchr(hex_lo, text[i], 16);

			if (!d)
				break;
			addr = addr << 4 | (uintptr_t)(d - hex_lo);
		}
		if (i == n) {
			bp_symbol(o, addr, TREV_SYM_BACKTRACE, c);
			return;
		}
	}
	out_mem(o, text, n);
}

/* bstr_printf(): 0, or -1 when the arguments run out. */
static int bp_format(struct bp_out *o, const char *fmt, struct bp_args *a)
{
	struct bp_conv c;
	unsigned long long num;
	unsigned char ch;
	const char *str;
	uintptr_t ptr;
	size_t n;
	int v;

	for (;;) {
		fmt = trev__bp_decode(fmt, &c);
		switch (c.type) {
		case BP_END:
		case BP_INVALID:
			return 0;
		case BP_TEXT:
			out_mem(o, c.text, c.len);
			continue;
		case BP_PERCENT:
			out_c(o, '%');
			continue;
		default:
			break;
		}
		if (c.width_star) {
			if (get_bytes(a, 4, &v, 4))
				return -1;
			v = bp_clamp_width(v);
			if (v < 0) {
				v = -v;
				c.flags |= BP_LEFT;
			}
			c.width = v;
		}
		if (c.prec_star) {
			if (get_bytes(a, 4, &v, 4))
				return -1;
			c.precision = v < 0 ? 0 : v > BP_PREC_MAX ? BP_PREC_MAX : v;
		}
		switch (c.type) {
		case BP_NUM:
			if (get_num(a, c.size, c.flags & BP_SIGN, &num))
				return -1;
			bp_number(o, num, c.flags, c.width, c.precision, c.base);
			break;
		case BP_CHAR:
			if (get_bytes(a, 1, &ch, 1))
				return -1;
			if (!(c.flags & BP_LEFT))
				out_pad(o, ' ', c.width - 1);
			out_c(o, (char)ch);
			if (c.flags & BP_LEFT)
				out_pad(o, ' ', c.width - 1);
			break;
		case BP_STR:
			str = get_str(a, &n);
			if (!str)
				return -1;
			bp_string(o, str, n, &c);
			break;
		case BP_PTR:
			if (bp_ptr_at_read(&c)) {
				if (get_ptr(a, &ptr))
					return -1;
				bp_pointer(o, (const void *)ptr, &c);
			} else {
				str = get_str(a, &n);
				if (!str)
					return -1;
				bp_pointer_text(o, str, n, &c);
			}
			break;
		default:
			break;
		}
	}
}

/**
 * trev__bprint_format() - format saved arguments into a trev_seq, as bstr_printf()
 * @s: where the text goes
 * @fmt: the format the arguments were saved with
 * @buf: the argument area of the record
 * @len: its size in bytes
 *
 * Reads nothing outside @buf + @len, whatever the bytes. The text is written
 * in full or, when it does not fit, not at all and @s is marked full (the
 * kernel's trace_seq_bprintf()). When the arguments run out, the text made so
 * far is kept.
 *
 * Context: any thread, not from a signal handler (%pS and friends look
 * symbols up).
 * Return: 0, or -1 if the arguments ran out before the format did.
 */
int trev__bprint_format(struct trev_seq *s, const char *fmt, const void *buf, size_t len)
{
	struct bp_args a = { .buf = buf, .len = buf ? len : 0 };
	struct bp_out o;
	int ret;

	if (s->full)
		return 0;
	o.buf = s->buffer + s->len;
	o.cap = TREV_SEQ_SIZE - 1 - s->len;
	o.pos = 0;
	ret = bp_format(&o, fmt, &a);
	if (o.pos > o.cap) {
		s->full = 1;
		s->buffer[s->len] = '\0';
		return ret;
	}
	s->len += o.pos;
	s->buffer[s->len] = '\0';
	return ret;
}

/**
 * trev__kptr_parse() - tell whether a conversion is one of the kernel's %p extensions
 * @fmt: a conversion, at its '%'
 * @stars: set to the number of int arguments its '*' width and precision take
 *
 * An extension is "%[flags][width][.precision][length]p" followed by a letter
 * or digit; every letter and digit after the 'p' belongs to it, as the kernel
 * skips them all.
 *
 * Context: any.
 * Return: the format past the conversion, or NULL when it is no extension.
 */
const char *trev__kptr_parse(const char *fmt, int *stars)
{
	struct bp_conv c;
	const char *end;

	if (!fmt || *fmt != '%')
		return NULL;
	end = trev__bp_decode(fmt, &c);
	if (c.type != BP_PTR || c.len == 0)
		return NULL;
	*stars = c.width_star + c.prec_star;
	return end;
}

/**
 * trev__kptr_snprint() - format one %p extension as the kernel's vsnprintf() does
 * @buf: where the text goes (no NUL is added)
 * @size: room at @buf
 * @fmt: the conversion, which trev__kptr_parse() accepted
 * @star: the values of its '*' width and precision, in order
 * @ptr: the argument
 *
 * The extensions that read memory (%pI4, %pM, %pU, %*pb, %pIS ...) read it
 * at @ptr now: it must point at the bytes (in a TP_printk, into the record).
 *
 * Context: any thread, not a signal handler (symbols are looked up).
 * Return: the length of the text; more than @size means it was cut.
 */
size_t trev__kptr_snprint(char *buf, size_t size, const char *fmt, const int *star,
			  const void *ptr)
{
	struct bp_out o = { .buf = buf, .cap = size };
	struct bp_conv c;

	trev__bp_decode(fmt, &c);
	if (c.type != BP_PTR)
		return 0;
	if (c.width_star) {
		int v = bp_clamp_width(*star++);

		if (v < 0) {
			v = -v;
			c.flags |= BP_LEFT;
		}
		c.width = v;
	}
	if (c.prec_star) {
		int v = *star;

		c.precision = v < 0 ? 0 : v > BP_PREC_MAX ? BP_PREC_MAX : v;
	}
	bp_pointer(&o, ptr, &c);
	return o.pos;
}
