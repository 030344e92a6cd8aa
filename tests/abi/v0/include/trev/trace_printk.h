/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk() and trace_puts(), as the kernel's: a constant format with
 * arguments records the format's address and the arguments in binary
 * (ftrace:bprint, formatted when read), a constant string records its
 * address (ftrace:bputs), anything else is formatted now (ftrace:print).
 */
#ifndef TREV_TRACE_PRINTK_H
#define TREV_TRACE_PRINTK_H

#include <stdio.h>
#include <string.h>

#include <trev/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size of a compiled format (src/output/bprint.h checks it fits). */
#define TREV_PRINTK_SPEC_SIZE	40

/*
 * One trace_printk()/trace_puts() call site. The first call interns the
 * format (a copy that outlives a dlclose of the caller) and compiles how
 * its arguments are saved; later calls only save them.
 */
struct trev_printk_site {
	const char *fmt;		/* as written at the call site */
	const char *interned;		/* what records point to; set once */
	int state;			/* 0 new, 1 binary, 2 + n: n int arguments, -1 text */
	unsigned char spec[TREV_PRINTK_SPEC_SIZE] __attribute__((aligned(8)));
};

/* Record functions behind the macros. Context: any thread; signal-safe once the site is set up. */
TREV_API int trev_trace_bprintk(struct trev_printk_site *site, unsigned long ip, ...);
TREV_API int trev_trace_printk(unsigned long ip, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
TREV_API int trev_trace_bputs(struct trev_printk_site *site, unsigned long ip);
TREV_API int trev_trace_puts(unsigned long ip, const char *str, size_t size);

/* Address of the calling code, as the kernel's _THIS_IP_. */
#define TREV_THIS_IP	({ __label__ __here; __here: (unsigned long)&&__here; })

/* Lets the compiler check the format against the arguments, at no cost. */
static inline __attribute__((format(printf, 1, 2))) void trev_printk_check_format(const char *fmt,
										 ...)
{
	(void)fmt;
}

#define trev_do_trace_printk(fmt, args...)					\
	do {									\
		static struct trev_printk_site __trev_site = {			\
			__builtin_constant_p(fmt) ? (fmt) : NULL, NULL, 0, { 0 } }; \
										\
		/* A run-time format is allowed, as in the kernel. */		\
		_Pragma("GCC diagnostic push")					\
		_Pragma("GCC diagnostic ignored \"-Wformat-nonliteral\"")	\
		_Pragma("GCC diagnostic ignored \"-Wformat-security\"")	\
		if (0)								\
			trev_printk_check_format(fmt, ##args);			\
		if (__builtin_constant_p(fmt))					\
			trev_trace_bprintk(&__trev_site, TREV_THIS_IP, ##args); \
		else								\
			trev_trace_printk(TREV_THIS_IP, fmt, ##args);		\
		_Pragma("GCC diagnostic pop")					\
	} while (0)

/*
 * trace_printk() - printf into the trace. Add the "\n" yourself, as in the
 * kernel. Context: any thread, signal-safe after its first call.
 */
#define trace_printk(fmt, ...)							\
	do {									\
		char __trev_args[] = __trev_stringify((__VA_ARGS__));		\
										\
		(void)__trev_args;						\
		if (sizeof(__trev_args) > 3)					\
			trev_do_trace_printk(fmt, ##__VA_ARGS__);		\
		else								\
			trace_puts(fmt);					\
	} while (0)

/* trace_puts() - a string into the trace. Return: the bytes recorded, 0 if none. */
#define trace_puts(str)								\
	({									\
		static struct trev_printk_site __trev_site = {			\
			__builtin_constant_p(str) ? (str) : NULL, NULL, 0, { 0 } }; \
										\
		__builtin_constant_p(str) ?					\
			trev_trace_bputs(&__trev_site, TREV_THIS_IP) :		\
			trev_trace_puts(TREV_THIS_IP, str, strlen(str));	\
	})

#ifdef __cplusplus
}
#endif

#endif /* TREV_TRACE_PRINTK_H */
