/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev_seq, the fixed text buffer (the kernel's trace_seq), and the helpers
 * behind TP_printk's __print_flags/_symbolic/_bitmask/_hex/_hex_str/_array.
 *
 * The helpers print what the kernel's trace_print_*_seq() print, character
 * for character. libtraceevent 1.7.1, which trace-cmd uses to print the same
 * records from their format files, differs from the kernel here:
 *
 *  __print_flags
 *   - an entry whose mask is 0: the kernel prints its name whenever the value
 *     is not 0 ((flags & 0) == 0 matches), libtraceevent never prints it (it
 *     only takes masks > 0). With a value of 0 neither prints anything.
 *   - an entry whose mask has bit 63 set: libtraceevent reads the mask as a
 *     signed long long, so it is negative and never matches; the kernel
 *     prints it.
 *   - a value of 0: libtraceevent prints the first entry whose mask is a name
 *     it cannot evaluate (it evaluates to -1); the kernel prints nothing.
 *   - a width or precision on the %s that prints the result ("%-20s"):
 *     libtraceevent applies it to each name on its own, and not to the
 *     leftover "0x..." part; the kernel pads the whole string.
 *  __print_symbolic
 *   - a matching entry whose name is "": the kernel, having printed nothing,
 *     prints "0x%lx" of the value; libtraceevent prints "".
 *   - a width or precision on the %s: as for __print_flags, libtraceevent
 *     applies it to the name only and not to the "0x..." of an unknown value.
 *  __print_array
 *   - libtraceevent 1.7.1 prints the elements in decimal, separated by spaces,
 *     without braces ("1 2 3"); the kernel prints "{0x1,0x2,0x3}"
 *     (libtraceevent 1.8.4 prints as the kernel does).
 *   - an element size other than 1, 2, 4, 8: both print "BAD SIZE:<n> 0x<byte>"
 *     and go on byte by byte, but libtraceevent stops after @count elements
 *     and the kernel after @count * @el_size bytes.
 *   - a negative count: the kernel's count * el_size wraps and it reads far
 *     past the array; libtraceevent reads the count as unsigned, likewise.
 *     Here a count <= 0 prints "{}".
 *  __print_hex / __print_hex_str
 *   - identical output for a length >= 0 (the kernel prints 16 bytes per %*ph
 *     and puts a space between the pieces; libtraceevent prints byte by byte).
 *     A negative length prints nothing in the kernel (and here); libtraceevent
 *     takes it as unsigned and reads past the field.
 *  __print_bitmask
 *   - identical on little-endian machines ("%*pb": 32-bit chunks, most
 *     significant first, a short first chunk when the size is not a multiple
 *     of 4 bytes). libtraceevent reads the mask byte by byte in the file's
 *     byte order, the kernel as unsigned longs; big-endian recordings with
 *     sizes that are not a multiple of sizeof(long) come out differently.
 *
 * Also kept from the kernel: the helpers return a pointer into @p and end
 * their text with a NUL that counts in @p->len (trace_seq_putc(p, 0)).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <trev/trace_seq.h>

#include "output/bprint.h"
#include "output/fmt_num.h"

/* Room left for text: the last byte of the buffer always holds a NUL. */
static inline size_t seq_room(const struct trev_seq *s)
{
	return TREV_SEQ_SIZE - 1 - s->len;
}

/* Mark @s full: nothing of the write that did not fit stays. */
static int seq_overflow(struct trev_seq *s)
{
	s->full = 1;
	s->buffer[s->len] = '\0';
	return -1;
}

/**
 * trev_seq_init() - empty a trev_seq
 * @s: the sequence
 *
 * Context: any; touches only @s.
 */
void trev_seq_init(struct trev_seq *s)
{
	s->len = 0;
	s->full = 0;
	s->buffer[0] = '\0';
}

/* ------------------------------------------------------------------ */
/* printf, mostly without vsnprintf                                     */

/*
 * TP_printk formats are mostly "name=%d other=%s", and vsnprintf took half
 * the time of a `trace` line for them. trev_seq_vprintf() formats the common
 * conversions itself, byte for byte as glibc does:
 *
 *   flags '-' and '0' (the '0' on numbers only), a width in digits, a
 *   precision in digits on %s, lengths hh h l ll z j t on d i u x X, and
 *   %c %s %p %%.
 *
 * The kernel's %p extensions, a 'p' followed by a letter or digit (%pS %ps
 * %pB %pI4 %pI6c %pISpc %pM %pU %pK %px %*pb %*pbl ...), print as the
 * kernel's vsnprintf() prints them (output/bprint.c); a plain %p stays
 * glibc's "0x1234" / "(nil)".
 *
 * At the first conversion outside that set it stops, and vsnprintf formats
 * the rest of the format with the arguments not yet taken: '*', '#', '+',
 * ' ', a precision on a number, %o, %f, %ls, %1$d ... print as they always
 * did. (A format that mixes %1$d with plain conversions is undefined for
 * glibc as well.) tests/unit/test_trace_seq.c compares the two.
 */

/* Widths and precisions from here on are left to vsnprintf (no line is this long). */
#define SEQ_MAX_WIDTH	((int)TREV_SEQ_SIZE)

/* One conversion, parsed. */
struct seq_conv {
	bool left;	/* '-': pad on the right */
	bool zero;	/* '0': pad a number with zeros after its sign */
	int width;	/* minimum field width; 0 for none */
	int prec;	/* %s precision; -1 for none */
	char len;	/* 0, 'H' (hh), 'h', 'l', 'q' (ll), 'z', 'j', 't' */
	char conv;	/* d i u x X c s p % */
};

static inline bool seq_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool seq_isalnum(char c)
{
	return seq_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Parse the conversion whose '%' is at @f into @c. Return: the format just
 * past it, or NULL when trev_seq_vprintf() leaves it to vsnprintf.
 */
static const char *seq_conv_parse(const char *f, struct seq_conv *c)
{
	const char *start = ++f;

	*c = (struct seq_conv){ .prec = -1 };
	for (;; f++) {
		if (*f == '-')
			c->left = true;
		else if (*f == '0')
			c->zero = true;
		else
			break;
	}
	while (seq_isdigit(*f)) {
		c->width = c->width * 10 + (*f++ - '0');
		if (c->width >= SEQ_MAX_WIDTH)
			return NULL;
	}
	if (*f == '.') {
		c->prec = 0;	/* "%.s": precision 0 */
		for (f++; seq_isdigit(*f); f++) {
			c->prec = c->prec * 10 + (*f - '0');
			if (c->prec >= SEQ_MAX_WIDTH)
				return NULL;
		}
	}
	switch (*f) {
	case 'h':
		c->len = f[1] == 'h' ? 'H' : 'h';
		f += c->len == 'H' ? 2 : 1;
		break;
	case 'l':
		c->len = f[1] == 'l' ? 'q' : 'l';
		f += c->len == 'q' ? 2 : 1;
		break;
	case 'z':
	case 'j':
	case 't':
		c->len = *f++;
		break;
	}
	c->conv = *f++;
	switch (c->conv) {
	case 'd':
	case 'i':
	case 'u':
	case 'x':
	case 'X':
		return c->prec < 0 ? f : NULL;
	case 's':
		return c->zero || c->len ? NULL : f;
	case 'c':
	case 'p':
		return c->zero || c->len || c->prec >= 0 ? NULL : f;
	case '%':
		return f == start + 1 ? f : NULL;	/* "%%" alone */
	default:
		return NULL;
	}
}

/*
 * A field of @c is @prefix ("-", "0x" or ""), then its text, padded to the
 * width with @pad bytes: spaces in front, zeros after the prefix ('0'), or
 * spaces behind ('-'). seq_field_start() writes what comes before the text.
 */
static inline char *seq_field_start(char *p, const struct seq_conv *c, const char *prefix,
				    size_t pad)
{
	if (pad && !c->left && !c->zero) {
		memset(p, ' ', pad);
		p += pad;
	}
	while (*prefix)
		*p++ = *prefix++;
	if (pad && !c->left && c->zero) {
		memset(p, '0', pad);
		p += pad;
	}
	return p;
}

static inline char *seq_field_end(char *p, const struct seq_conv *c, size_t pad)
{
	if (pad && c->left) {
		memset(p, ' ', pad);
		p += pad;
	}
	return p;
}

static inline size_t seq_pad(const struct seq_conv *c, size_t n)
{
	return (size_t)c->width > n ? (size_t)c->width - n : 0;
}

/*
 * @v as a field of @c at @p, in decimal, or in hex with @hex's digits.
 * Return: the end, or NULL if it does not fit before @end.
 */
static inline char *seq_put_number(char *p, char *end, const struct seq_conv *c,
				   const char *prefix, size_t nprefix, unsigned long long v,
				   const char *hex)
{
	size_t nd = (size_t)(hex ? fmt_uhex_len(v) : fmt_udec_len(v));
	size_t pad = seq_pad(c, nprefix + nd);

	if ((size_t)(end - p) < nprefix + nd + pad)
		return NULL;
	p = seq_field_start(p, c, prefix, pad);
	if (hex)
		fmt_uhex_rev(p + nd, v, hex);
	else
		fmt_udec_rev(p + nd, v);
	return seq_field_end(p + nd, c, pad);
}

/* @len bytes of @str as a field of @c at @p; as seq_put_number(). */
static inline char *seq_put_text(char *p, char *end, const struct seq_conv *c, const char *str,
				 size_t len)
{
	size_t pad = seq_pad(c, len);

	if ((size_t)(end - p) < len + pad)
		return NULL;
	p = seq_field_start(p, c, "", pad);
	memcpy(p, str, len);
	return seq_field_end(p + len, c, pad);
}

/*
 * The rest of a format, from @f, by vsnprintf at @p; what trev_seq_vprintf()
 * returns. @f is the tail of trev_seq_vprintf()'s format, which the callers'
 * compilers checked; to this one it is just a pointer.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int seq_vprintf_rest(struct trev_seq *s, char *p, const char *f, va_list ap)
{
	size_t room = (size_t)(s->buffer + TREV_SEQ_SIZE - 1 - p);
	int n = vsnprintf(p, room + 1, f, ap);

	if (n < 0) {
		/* An encoding error, not a lack of room. */
		s->buffer[s->len] = '\0';
		return -1;
	}
	if ((size_t)n > room)
		return seq_overflow(s);
	s->len = (size_t)(p + n - s->buffer);
	return 0;
}
#pragma GCC diagnostic pop

/**
 * trev_seq_vprintf() - append printf-formatted text (glibc's conversions)
 * @s: the sequence
 * @fmt: printf format
 * @ap: its arguments
 *
 * As the kernel's trace_seq_vprintf(): text that does not fit in full is
 * not written at all, and marks @s full.
 *
 * Context: any thread; not async-signal-safe (vsnprintf).
 * Return: 0, or -1 if @s is full or the text did not fit.
 */
int trev_seq_vprintf(struct trev_seq *s, const char *fmt, va_list ap)
{
	char *p = s->buffer + s->len;
	char *end = s->buffer + TREV_SEQ_SIZE - 1;	/* the NUL's byte */
	const char *f = fmt;

	if (s->full)
		return -1;
	while (*f) {
		static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
		const char *next;
		struct seq_conv c;
		/* A number: @prefix, then @u in decimal or with @hex's digits ... */
		const char *prefix = "", *hex = NULL;
		unsigned long long u = 0;
		/* ... or @len bytes of @str. */
		const char *str = NULL;
		size_t len = 1;
		long long v;
		char ch;

		if (*f != '%') {
			if (p == end)
				return seq_overflow(s);
			*p++ = *f++;
			continue;
		}
		next = seq_conv_parse(f, &c);
		if (!next || (c.conv == 'p' && seq_isalnum(*next))) {
			int stars, star[2] = { 0, 0 };
			const char *kend = trev__kptr_parse(f, &stars);
			size_t n;

			if (!kend)
				return seq_vprintf_rest(s, p, f, ap);
			for (int i = 0; i < stars; i++)
				star[i] = va_arg(ap, int);
			n = trev__kptr_snprint(p, (size_t)(end - p), f, star, va_arg(ap, const void *));
			if (n > (size_t)(end - p))
				return seq_overflow(s);
			p += n;
			f = kend;
			continue;
		}
		switch (c.conv) {
		case 'd':
		case 'i':
			switch (c.len) {
			case 'H': v = (signed char)va_arg(ap, int); break;
			case 'h': v = (short)va_arg(ap, int); break;
			case 'l': v = va_arg(ap, long); break;
			case 'q': v = va_arg(ap, long long); break;
			case 'z': v = va_arg(ap, ssize_t); break;
			case 'j': v = va_arg(ap, intmax_t); break;
			case 't': v = va_arg(ap, ptrdiff_t); break;
			default: v = va_arg(ap, int); break;
			}
			u = (unsigned long long)v;
			if (v < 0) {
				prefix = "-";
				u = 0ull - u;
			}
			break;
		case 'u':
		case 'x':
		case 'X':
			switch (c.len) {
			case 'H': u = (unsigned char)va_arg(ap, unsigned int); break;
			case 'h': u = (unsigned short)va_arg(ap, unsigned int); break;
			case 'l': u = va_arg(ap, unsigned long); break;
			case 'q': u = va_arg(ap, unsigned long long); break;
			case 'z': u = va_arg(ap, size_t); break;
			case 'j': u = va_arg(ap, uintmax_t); break;
			case 't': u = (size_t)va_arg(ap, ptrdiff_t); break;
			default: u = va_arg(ap, unsigned int); break;
			}
			if (c.conv != 'u')
				hex = c.conv == 'x' ? lower : upper;
			break;
		case 'c':
			ch = (char)(unsigned char)va_arg(ap, int);
			str = &ch;
			break;
		case 's':
			str = va_arg(ap, const char *);
			if (!str)	/* glibc: "(null)" unless the precision cuts it */
				str = c.prec < 0 || c.prec >= 6 ? "(null)" : "";
			len = c.prec < 0 ? strlen(str) : strnlen(str, (size_t)c.prec);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, const void *);
			prefix = "0x";
			hex = lower;
			if (!u) {
				str = "(nil)";
				len = 5;
			}
			break;
		default:	/* "%%" */
			str = "%";
			break;
		}
		if (str)
			p = seq_put_text(p, end, &c, str, len);
		else
			p = seq_put_number(p, end, &c, prefix, strlen(prefix), u, hex);
		if (!p)
			return seq_overflow(s);
		f = next;
	}
	*p = '\0';
	s->len = (size_t)(p - s->buffer);
	return 0;
}

/**
 * trev_seq_printf() - append printf-formatted text (glibc's conversions)
 * @s: the sequence
 * @fmt: printf format
 *
 * Context: any thread; not async-signal-safe (vsnprintf).
 * Return: 0, or -1 if @s is full or the text did not fit.
 */
int trev_seq_printf(struct trev_seq *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = trev_seq_vprintf(s, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * trev_seq_putmem() - append raw bytes
 * @s: the sequence
 * @mem: the bytes (may contain NULs)
 * @len: how many
 *
 * Context: any; async-signal-safe.
 * Return: 0, or -1 if @s is full or the bytes did not fit (none written).
 */
int trev_seq_putmem(struct trev_seq *s, const void *mem, size_t len)
{
	if (s->full)
		return -1;
	if (len > seq_room(s))
		return seq_overflow(s);
	memcpy(s->buffer + s->len, mem, len);
	s->len += len;
	s->buffer[s->len] = '\0';
	return 0;
}

/**
 * trev_seq_puts() - append a string
 * @s: the sequence
 * @str: NUL-terminated text
 *
 * Context: any; async-signal-safe.
 * Return: 0, or -1 if @s is full or @str did not fit (nothing written).
 */
int trev_seq_puts(struct trev_seq *s, const char *str)
{
	return trev_seq_putmem(s, str, strlen(str));
}

/**
 * trev_seq_putc() - append one character
 * @s: the sequence
 * @c: the character; '\0' is stored and counted, as by the kernel
 *
 * Context: any; async-signal-safe.
 * Return: 0, or -1 if @s is full.
 */
int trev_seq_putc(struct trev_seq *s, char c)
{
	if (s->full)
		return -1;
	if (seq_room(s) < 1)
		return seq_overflow(s);
	s->buffer[s->len++] = c;
	s->buffer[s->len] = '\0';
	return 0;
}

static inline const char *seq_ptr(const struct trev_seq *p)
{
	return p->buffer + p->len;
}

/**
 * trev_print_flags_seq() - __print_flags(): names of the set bits
 * @p: scratch sequence (the iterator's tmp_seq)
 * @delim: put between names; NULL for none
 * @flags: the value
 * @flag_array: {mask, name} entries, ended by one whose name is NULL
 *
 * Entries are taken in order; one matches when all its mask bits are set, and
 * its bits are then cleared. Bits no entry took print as "0x%lx".
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_flags_seq(struct trev_seq *p, const char *delim, unsigned long flags,
				 const struct trev_print_flags *flag_array)
{
	const char *ret = seq_ptr(p);
	int first = 1;

	for (int i = 0; flag_array[i].name && flags; i++) {
		unsigned long mask = flag_array[i].mask;

		if ((flags & mask) != mask)
			continue;
		flags &= ~mask;
		if (!first && delim)
			trev_seq_puts(p, delim);
		first = 0;
		trev_seq_puts(p, flag_array[i].name);
	}
	if (flags) {
		if (!first && delim)
			trev_seq_puts(p, delim);
		trev_seq_printf(p, "0x%lx", flags);
	}
	trev_seq_putc(p, '\0');
	return ret;
}

/**
 * trev_print_flags_seq_u64() - __print_flags_u64(): trev_print_flags_seq() on 64 bits
 * @p: scratch sequence
 * @delim: put between names; NULL for none
 * @flags: the value
 * @flag_array: {mask, name} entries, ended by one whose name is NULL
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_flags_seq_u64(struct trev_seq *p, const char *delim,
				     unsigned long long flags,
				     const struct trev_print_flags_u64 *flag_array)
{
	const char *ret = seq_ptr(p);
	int first = 1;

	for (int i = 0; flag_array[i].name && flags; i++) {
		unsigned long long mask = flag_array[i].mask;

		if ((flags & mask) != mask)
			continue;
		flags &= ~mask;
		if (!first && delim)
			trev_seq_puts(p, delim);
		first = 0;
		trev_seq_puts(p, flag_array[i].name);
	}
	if (flags) {
		if (!first && delim)
			trev_seq_puts(p, delim);
		trev_seq_printf(p, "0x%llx", flags);
	}
	trev_seq_putc(p, '\0');
	return ret;
}

/**
 * trev_print_symbols_seq() - __print_symbolic(): the name of a value
 * @p: scratch sequence
 * @val: the value
 * @symbol_array: {value, name} entries, ended by one whose name is NULL
 *
 * The first entry equal to @val gives the name; when none does, or the name
 * printed nothing, the value prints as "0x%lx".
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_symbols_seq(struct trev_seq *p, unsigned long val,
				   const struct trev_print_flags *symbol_array)
{
	const char *ret = seq_ptr(p);

	for (int i = 0; symbol_array[i].name; i++) {
		if (val != symbol_array[i].mask)
			continue;
		trev_seq_puts(p, symbol_array[i].name);
		break;
	}
	if (ret == seq_ptr(p))
		trev_seq_printf(p, "0x%lx", val);
	trev_seq_putc(p, '\0');
	return ret;
}

/**
 * trev_print_symbols_seq_u64() - __print_symbolic_u64(): trev_print_symbols_seq() on 64 bits
 * @p: scratch sequence
 * @val: the value
 * @symbol_array: {value, name} entries, ended by one whose name is NULL
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_symbols_seq_u64(struct trev_seq *p, unsigned long long val,
				       const struct trev_print_flags_u64 *symbol_array)
{
	const char *ret = seq_ptr(p);

	for (int i = 0; symbol_array[i].name; i++) {
		if (val != symbol_array[i].mask)
			continue;
		trev_seq_puts(p, symbol_array[i].name);
		break;
	}
	if (ret == seq_ptr(p))
		trev_seq_printf(p, "0x%llx", val);
	trev_seq_putc(p, '\0');
	return ret;
}

/*
 * Bits [bit, bit + 32) of a bitmap stored as unsigned longs (the kernel's
 * layout: bit n is bit n % BITS_PER_LONG of long n / BITS_PER_LONG), read
 * byte by byte so that a size that is not a multiple of sizeof(long) is
 * never read past. Bits past @size bytes read as 0.
 */
static uint32_t bitmap_chunk(const unsigned char *map, size_t size, unsigned int bit)
{
	uint32_t val = 0;

	for (unsigned int k = 0; k < 32; k += 8) {
		size_t b = (bit + k) / 8;	/* byte number in little-endian order */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		b = b / sizeof(long) * sizeof(long) + (sizeof(long) - 1 - b % sizeof(long));
#endif
		if (b < size)
			val |= (uint32_t)map[b] << k;
	}
	return val;
}

/**
 * trev_print_bitmask_seq() - __print_bitmask(): a bitmap as "%*pb" prints it
 * @p: scratch sequence
 * @bitmask_ptr: the bitmap, an array of unsigned longs as the kernel stores it
 * @bitmask_size: its size in bytes
 *
 * Comma-separated 32-bit chunks in hex, most significant first; the first
 * chunk has as many digits as its bits need ("%*pb" of @bitmask_size * 8 bits).
 * The whole text is written or, if it does not fit, none of it.
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_bitmask_seq(struct trev_seq *p, const void *bitmask_ptr,
				   unsigned int bitmask_size)
{
	const char *ret = seq_ptr(p);
	size_t save = p->len;
	unsigned long nr_bits = (unsigned long)bitmask_size * 8;
	unsigned int chunk = nr_bits % 32 ? nr_bits % 32 : 32;

	if (!p->full && nr_bits) {
		long i = (long)((nr_bits + 31) / 32 * 32) - 32;

		for (; i >= 0; i -= 32) {
			uint32_t val = bitmap_chunk(bitmask_ptr, bitmask_size, (unsigned int)i);

			if (chunk < 32)
				val &= (1u << chunk) - 1;
			if (trev_seq_printf(p, "%s%0*x", p->len == save ? "" : ",",
					    (int)(chunk + 3) / 4, val) < 0) {
				/* seq_buf_printf of "%*pb" is one write: all or nothing. */
				p->len = save;
				p->buffer[save] = '\0';
				break;
			}
			chunk = 32;
		}
	}
	trev_seq_putc(p, '\0');
	return ret;
}

static const char hex_asc[] = "0123456789abcdef";

/*
 * One "%*ph" / "%*phN" of at most 16 bytes, written at once (all or nothing,
 * as trace_seq_printf). A NULL @buf prints "(null)" padded to the field width
 * (the byte count), as the kernel's check_pointer() does.
 */
static void hex_piece(struct trev_seq *p, const unsigned char *buf, int len, int concatenate)
{
	char tmp[16 * 3];
	size_t n = 0;

	if (!buf) {
		trev_seq_printf(p, "%*s", len, "(null)");
		return;
	}
	for (int i = 0; i < len; i++) {
		tmp[n++] = hex_asc[buf[i] >> 4];
		tmp[n++] = hex_asc[buf[i] & 0xf];
		if (!concatenate && i != len - 1)
			tmp[n++] = ' ';
	}
	trev_seq_putmem(p, tmp, n);
}

/**
 * trev_print_hex_seq() - __print_hex() / __print_hex_str(): bytes in hex
 * @p: scratch sequence
 * @buf: the bytes
 * @buf_len: how many; <= 0 prints nothing
 * @concatenate: 0: "01 02 ff" (__print_hex), else "0102ff" (__print_hex_str)
 *
 * As the kernel, 16 bytes at a time with "%*ph" or "%*phN", a space between
 * two pieces unless @concatenate.
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_hex_seq(struct trev_seq *p, const unsigned char *buf, int buf_len,
			       int concatenate)
{
	const char *ret = seq_ptr(p);

	for (int i = 0; i < buf_len; i += 16) {
		if (!concatenate && i != 0)
			trev_seq_putc(p, ' ');
		hex_piece(p, buf ? buf + i : NULL, buf_len - i < 16 ? buf_len - i : 16,
			  concatenate);
	}
	trev_seq_putc(p, '\0');
	return ret;
}

/**
 * trev_print_array_seq() - __print_array(): "{0x1,0x2}"
 * @p: scratch sequence
 * @buf: the elements, in host byte order
 * @count: how many; <= 0 prints "{}"
 * @el_size: bytes per element: 1, 2, 4 or 8
 *
 * Another @el_size prints "BAD SIZE:<el_size> 0x<first byte>" and then goes on
 * one byte per element through all @count * @el_size bytes, as the kernel.
 *
 * Context: any thread.
 * Return: the text, NUL-terminated, inside @p.
 */
const char *trev_print_array_seq(struct trev_seq *p, const void *buf, int count, size_t el_size)
{
	const char *ret = seq_ptr(p);
	const unsigned char *ptr = buf;
	const unsigned char *end = ptr;
	const char *prefix = "";

	if (count > 0 && el_size && (size_t)count <= SIZE_MAX / el_size)
		end = ptr + (size_t)count * el_size;
	trev_seq_putc(p, '{');
	while (ptr < end) {
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;

		switch (el_size) {
		case 1:
			trev_seq_printf(p, "%s0x%x", prefix, *ptr);
			break;
		case 2:
			memcpy(&u16, ptr, sizeof(u16));
			trev_seq_printf(p, "%s0x%x", prefix, u16);
			break;
		case 4:
			memcpy(&u32, ptr, sizeof(u32));
			trev_seq_printf(p, "%s0x%x", prefix, u32);
			break;
		case 8:
			memcpy(&u64, ptr, sizeof(u64));
			trev_seq_printf(p, "%s0x%llx", prefix, (unsigned long long)u64);
			break;
		default:
			trev_seq_printf(p, "BAD SIZE:%zu 0x%x", el_size, *ptr);
			el_size = 1;
		}
		prefix = ",";
		ptr += el_size;
	}
	trev_seq_putc(p, '}');
	trev_seq_putc(p, '\0');
	return ret;
}
