/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stacktrace trigger's records (and the stacktrace function command's):
 * the built-in event ftrace:kernel_stack
 * (id 12, the kernel's FTRACE_ENTRY(kernel_stack, stack_entry, TRACE_STACK))
 * holding the return addresses of the thread that hit the event, printed
 * as the kernel's trace_stack_print() does.
 *
 * Unwinding is glibc's backtrace(), i.e. libgcc's DWARF unwinder: it needs
 * no frame pointers. Its first call dlopen()s libgcc_s, so registering a
 * stacktrace trigger makes that call; after it, with glibc >= 2.35 and
 * libgcc >= 12, each unwind finds its frames through _dl_find_object(),
 * which takes no lock and is async-signal-safe (docs/triggers.md).
 */
#include <execinfo.h>
#include <stddef.h>
#include <string.h>

#include "output/sym_print.h"
#include "sym/symbols.h"
#include "tracepoint/tracepoint_internal.h"
#include "write/write.h"

/* The kernel's FTRACE_STACK_ENTRIES: what the format file shows. */
#define STACK_ENTRIES		8
/* Frames kept at most (records grow past caller[8], as the kernel's do). */
#define STACK_MAX		16
/* Frames unwound: ours, the probe's, the tracepoint's, then the caller's. */
#define STACK_UNWIND		(STACK_MAX + 12)

/*
 * Record layout (the kernel's struct stack_entry):
 *   OFFSET  SIZE      MEANING
 *   0       8         struct trev_entry (common fields)
 *   8       4         size: the number of addresses in caller[]
 *   16      8 * n     caller[]: return addresses, innermost first; n is at
 *                     least 8, and an unused caller[size] is ULONG_MAX
 */
struct stack_entry {
	struct trev_entry ent;
	int size;
	unsigned long caller[STACK_ENTRIES];
};

/* [*lo, *hi) of the function at @addr; without a known size, 16 KiB. */
static void stack_fn_range(unsigned long addr, unsigned long *lo, unsigned long *hi)
{
	struct trev_sym sym;

	*lo = *hi = 0;
	if (!addr)
		return;
	*lo = addr;
	*hi = addr + 16384;
	if (trev__sym_lookup(addr, &sym) == 0 && sym.start == addr && sym.size)
		*hi = addr + sym.size;
}

void trev__stack_prepare(struct trev_event_call *call, struct trev_stack_skip *skip)
{
	struct trev__tp_ref tp = { 0 };
	void *prime[2];

	backtrace(prime, 2);
	if (call->tp)
		trev__tp_ref(call->tp, &tp);
	stack_fn_range((unsigned long)tp.iterator, &skip->iter_lo, &skip->iter_hi);
	stack_fn_range((unsigned long)call->klass->probe, &skip->probe_lo, &skip->probe_hi);
}

/*
 * frames[i] returns into the function of frame i + 1. The first return
 * into __traceiter_<event>() is followed by the function that called
 * trace_<event>(), where the caller's stack starts; the probe, when it
 * was not inlined into the iterator, lies before it. Without an iterator
 * (built-in events), the frame after the one returning into the probe.
 */
int trev__stack_first(const struct trev_stack_skip *skip, void *const *frames, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned long a = (unsigned long)frames[i];

		if (a >= skip->iter_lo && a < skip->iter_hi)
			return i + 1;
	}
	for (int i = 0; i < n; i++) {
		unsigned long a = (unsigned long)frames[i];

		if (a >= skip->probe_lo && a < skip->probe_hi && i + 2 < n)
			return i + 2;
	}
	return n > 1 ? 1 : n;
}

void trev__stack_record(struct trev_trace_array *tr, const struct trev_stack_skip *skip)
{
	void *frames[STACK_UNWIND];
	struct trev_event_file file = { .call = &trev__ftrace_event_kernel_stack, .tr = tr };
	struct trev_event_buffer fb;
	struct stack_entry *e;
	int n = backtrace(frames, STACK_UNWIND), first, keep;
	unsigned int len;

	first = trev__stack_first(skip, frames, n);
	keep = n - first;
	if (keep > STACK_MAX)
		keep = STACK_MAX;
	len = (unsigned int)(offsetof(struct stack_entry, caller) +
			     sizeof(unsigned long) * (size_t)(keep < STACK_ENTRIES ? STACK_ENTRIES
										 : keep));
	e = trev_event_buffer_reserve(&fb, &file, len);
	if (!e)
		return;
	e->size = keep;
	memcpy(e->caller, frames + first, sizeof(unsigned long) * (size_t)keep);
	for (int i = keep; i < STACK_ENTRIES; i++)
		e->caller[i] = i == keep ? ~0ul : 0;
	trev_event_buffer_commit(&fb);
}

static int stack_option_prepare(struct trev_event_call *call, void *arg)
{
	(void)arg;
	if (!(call->flags & TREV_EVENT_FL_FTRACE) && call->rt)
		trev__stack_prepare(call, &trev__event_rt(call)->stack_skip);
	return 0;
}

void trev__stack_option(struct trev_trace_array *tr, bool on)
{
	trev__events_write_lock();
	if (on)
		trev__events_for_each(stack_option_prepare, NULL);
	trev__inst_bits_set(tr, TREV_FILE_FL_STACK, on);
	trev__events_write_unlock();
}

/* The kernel's trace_stack_print(): "<stack trace>", then " => sym" per address. */
static int stack_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct stack_entry *e = (const struct stack_entry *)(const void *)iter->ent;
	const unsigned long *first, *p, *end;

	(void)call;
	if (iter->ent_size < offsetof(struct stack_entry, caller))
		return -1;
	/* Not e->caller: a record holds more than its 8 (UBSan's bounds check). */
	first = (const unsigned long *)(const void *)((const char *)iter->ent +
						      offsetof(struct stack_entry, caller));
	end = (const unsigned long *)(const void *)((const char *)iter->ent + iter->ent_size);
	trev_seq_puts(&iter->seq, "<stack trace>\n");
	for (p = first; p < end && p - first < e->size && *p != ~0ul; p++) {
		trev_seq_puts(&iter->seq, " => ");
		trev__sym_print(&iter->seq, *p, !!(iter->trace_flags & TREV_ITER_SYM_OFFSET));
		if (iter->trace_flags & TREV_ITER_SYM_ADDR)
			trev_seq_printf(&iter->seq, " <%016lx>", *p);
		trev_seq_putc(&iter->seq, '\n');
	}
	return 0;
}

static int stack_fields(struct trev_event_call *call)
{
	return trev_event_define_field(call, "int", "size", (int)offsetof(struct stack_entry, size),
				       (int)sizeof(int), 1, TREV_FILTER_OTHER) ?:
	       trev_event_define_array(call, "unsigned long", "caller",
				       (int)offsetof(struct stack_entry, caller),
				       (int)sizeof(((struct stack_entry *)0)->caller),
				       (int)sizeof(unsigned long), 0);
}

static const struct trev_event_class stack_class = { TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, stack_fields,
						     sizeof(struct stack_entry) };

/* The kernel's print fmt for kernel_stack, as libtraceevent reads it. */
struct trev_event_call trev__ftrace_event_kernel_stack = {
	TREV_ABI_HDR(struct trev_event_call), &stack_class, "kernel_stack", NULL,
	"\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
	"\"\\t=> %ps\\n\\t=> %ps\\n\", "
	"(void *)REC->caller[0], (void *)REC->caller[1], (void *)REC->caller[2], "
	"(void *)REC->caller[3], (void *)REC->caller[4], (void *)REC->caller[5], "
	"(void *)REC->caller[6], (void *)REC->caller[7]",
	stack_output, TREV_EVENT_FL_FTRACE, 0, NULL
};
