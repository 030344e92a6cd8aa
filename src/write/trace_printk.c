/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_printk(), trace_puts() and their built-in events ftrace:print,
 * ftrace:bprint and ftrace:bputs (the kernel's trace_printk.c and the
 * FTRACE_ENTRY()s of trace_entries.h), with printk_formats.
 *
 * A constant format is interned on its call site's first use: records point
 * to the copy, which is never freed, so they stay printable after the
 * caller's object is unloaded (the kernel does the same for modules). The
 * strings of tracepoint_string() are interned and listed the same way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trev/rcu.h>

#include <trev/trace_printk.h>

#include "base/buf.h"
#include "base/log.h"
#include "events/events_internal.h"
#include "output/bprint.h"
#include "output/output.h"
#include "output/sym_print.h"
#include "sym/symbols.h"
#include "write/bprint_save.h"
#include "write/write.h"

_Static_assert(TREV_PRINTK_SPEC_SIZE >= TREV_BPRINT_SPEC_SIZE,
	       "struct trev_printk_site cannot hold a compiled format");

/*
 * What the library keeps in a call site: the whole site in ABI 0, the part
 * after the header in ABI 1 (trev/abi.h). Each ABI has entry points of its
 * own: trev_trace_bprintk() and trev_trace_bputs() are ABI 0's symbols, and
 * <trev/trace_printk.h> names ABI 1's trev_trace_bprintk_v1() and
 * trev_trace_bputs_v1(), so that a program built for ABI 1 does not load
 * with a libtrev that cannot read its sites.
 */
struct printk_body {
	const char *fmt;		/* as written at the call site */
	const char *interned;		/* what records point to; set once */
	int state;			/* 0 new, 1 binary, 2 + n ints, -1 text */
	unsigned char spec[TREV_PRINTK_SPEC_SIZE] __attribute__((aligned(8)));
};

_Static_assert(offsetof(struct trev_printk_site, fmt) == sizeof(struct trev_abi_hdr) &&
	       sizeof(struct trev_printk_site) ==
		       sizeof(struct trev_abi_hdr) + sizeof(struct printk_body) &&
	       offsetof(struct trev_printk_site, spec) ==
		       sizeof(struct trev_abi_hdr) + offsetof(struct printk_body, spec),
	       "struct trev_printk_site is not a header followed by struct printk_body");

/* Bytes 0-7 of an ABI 1 site, as one word: the version and the magic above the size. */
#define PRINTK_SITE_HDR_MASK	0xffffffffffff0000ull
#define PRINTK_SITE_HDR_V1	(((uint64_t)TREV_ABI_MAGIC << 32) | ((uint64_t)TREV_ABI_VERSION << 16))

static atomic_bool printk_refused_logged;

/* A site that is not ABI 1's: never written to, never recorded. */
static __attribute__((cold, noinline)) struct printk_body *printk_site_refused(const void *site)
{
	const struct trev_abi_hdr *h = site;

	if (!atomic_exchange(&printk_refused_logged, true))
		trev__log(TREV_LOG_ERR,
			  "trace_printk: a call site of ABI %u (size %u) is not of this libtrev's "
			  "ABI %d: its records are dropped\n",
			  (unsigned int)h->abi, (unsigned int)h->size, TREV_ABI_VERSION);
	return NULL;
}

/*
 * The library's part of an ABI 1 @site, or NULL if its header is not ABI
 * 1's. One load of a word in the line the call reads anyway.
 * Context: any thread, signal-safe.
 */
static inline struct printk_body *printk_site_v1(struct trev_printk_site *site)
{
	uint64_t word;

	memcpy(&word, site, sizeof(word));
	if (trev_likely((word & PRINTK_SITE_HDR_MASK) == PRINTK_SITE_HDR_V1 &&
			site->abi.size >= sizeof(*site)))
		return (struct printk_body *)(void *)&site->fmt;
	return printk_site_refused(site);
}

/* The kernel's print/bprint/bputs records (docs/formats.md, "The ftrace events"). */
/* trace_marker_raw's record: an id the writer chose, then its bytes. */
struct raw_data_entry {
	struct trev_entry ent;
	unsigned int id;
	char buf[];
};

struct print_entry {
	struct trev_entry ent;
	unsigned long ip;
	char buf[];
};

struct bprint_entry {
	struct trev_entry ent;
	unsigned long ip;
	const char *fmt;
	uint32_t buf[];
};

struct bputs_entry {
	struct trev_entry ent;
	unsigned long ip;
	const char *str;
};

/* The kernel's TRACE_BUF_SIZE: the longest trace_printk() text. */
#define PRINTK_BUF_SIZE	1024

/* Interned formats: a list that only grows, readable without the lock. */
struct printk_fmt {
	struct printk_fmt *next;
	char fmt[];
};

static pthread_mutex_t fmt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct printk_fmt *_Atomic fmts;

/* Called with fmt_lock held. */
static const char *printk_intern(const char *fmt)
{
	struct printk_fmt *f;
	size_t len = strlen(fmt);

	for (f = atomic_load(&fmts); f; f = f->next)
		if (strcmp(f->fmt, fmt) == 0)
			return f->fmt;
	f = malloc(sizeof(*f) + len + 1);
	if (!f)
		return NULL;
	memcpy(f->fmt, fmt, len + 1);
	f->next = atomic_load(&fmts);
	atomic_store_explicit(&fmts, f, memory_order_release);
	return f->fmt;
}

/*
 * A call site's first use: intern and compile. Return: its state (1 binary,
 * 2 + n binary with n int arguments and nothing else, -1 text), or 0 when
 * the lock is busy (a signal handler interrupted the setup of another
 * site: format this one as text, this time).
 */
static __attribute__((cold, noinline)) int printk_site_setup(struct printk_body *site, bool binary)
{
	int state;

	if (pthread_mutex_trylock(&fmt_lock) != 0)
		return 0;
	state = __atomic_load_n(&site->state, __ATOMIC_RELAXED);
	if (state == 0) {
		site->interned = printk_intern(site->fmt);
		if (!site->interned)
			state = -1;
		else if (!binary)
			state = 1;
		else
			state = trev__bprint_compile(site->fmt, site->spec) == 0 ? 1 : -1;
		if (state == 1 && binary && trev__bprint_int_args(site->spec) >= 0)
			state = 2 + trev__bprint_int_args(site->spec);
		__atomic_store_n(&site->state, state, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fmt_lock);
	return state;
}

const char *trev_tracepoint_string(struct trev_tp_string *site)
{
	const char *s;

	if (pthread_mutex_trylock(&fmt_lock) != 0)
		return site->str;
	s = __atomic_load_n(&site->interned, __ATOMIC_RELAXED);
	if (!s) {
		s = printk_intern(site->str);
		if (s)
			__atomic_store_n(&site->interned, s, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&fmt_lock);
	return s ? s : site->str;
}

static struct trev_trace_array *printk_instance(void)
{
	struct trev_trace_array *tr = trev__top_instance_if_made();

	return trev_likely(tr) ? tr : trev__top_instance();
}

/* A record being written, and the read section it is written in. */
struct printk_buf {
	struct trev_event_buffer fb;
	struct trev_rcu_section rcu;
};

/*
 * Reserve a record of a built-in event and fill its common fields. Reserve
 * to commit is an RCU read section, as a tracepoint's probes run in one: a
 * snapshot swap waits for it before the old buffer is read or freed.
 */
static void *printk_reserve_file(struct printk_buf *fb, struct trev_event_file *file,
				 unsigned int len)
{
	void *rec;

	fb->rcu = trev_rcu_read_lock();
	rec = trev_event_buffer_reserve(&fb->fb, file, len);
	if (!rec)
		trev_rcu_read_unlock(fb->rcu);
	return rec;
}

static void *printk_reserve(struct trev_trace_array *tr, struct trev_event_call *call,
			    unsigned int len, struct printk_buf *fb)
{
	struct trev_event_rt *rt = trev__event_rt(call);

	if (!__atomic_load_n(&rt->file.tr, __ATOMIC_RELAXED))
		__atomic_store_n(&rt->file.tr, tr, __ATOMIC_RELAXED);
	return printk_reserve_file(fb, &rt->file, len);
}

static void printk_commit(struct printk_buf *fb)
{
	trev_event_buffer_commit(&fb->fb);
	trev_rcu_read_unlock(fb->rcu);
}

static __attribute__((format(printf, 2, 0))) int printk_string(unsigned long ip, const char *fmt,
								    va_list ap)
{
	struct trev_trace_array *tr = printk_instance();
	struct printk_buf fb;
	struct print_entry *e;
	char buf[PRINTK_BUF_SIZE];
	int len;

	if (!tr)
		return 0;
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (len < 0)
		return 0;
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	e = printk_reserve(tr, &trev__ftrace_event_print, sizeof(*e) + (unsigned int)len + 1, &fb);
	if (!e)
		return 0;
	e->ip = ip;
	memcpy(e->buf, buf, (size_t)len + 1);
	printk_commit(&fb);
	return len;
}

int trev_trace_printk(unsigned long ip, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = printk_string(ip, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * @words int arguments into @buf. Up to four are taken one va_arg() after
 * another, written out: the compiler then knows where each one lies and
 * drops va_arg()'s tests (27 instructions fewer for three than the loop).
 */
static inline void bprint_save_ints(uint32_t *buf, size_t words, va_list ap)
{
#define ARG(i)	buf[i] = (uint32_t)va_arg(ap, int)
	switch (words) {
	case 1: ARG(0); break;
	case 2: ARG(0); ARG(1); break;
	case 3: ARG(0); ARG(1); ARG(2); break;
	case 4: ARG(0); ARG(1); ARG(2); ARG(3); break;
	default:
		for (size_t i = 0; i < words; i++)
			ARG(i);
	}
#undef ARG
}

/* trace_printk() of a constant format, for both ABIs; @ap is used once. */
static inline __attribute__((always_inline)) int printk_bprintk(struct printk_body *site,
								 unsigned long ip, va_list ap)
{
	struct trev_trace_array *tr = printk_instance();
	uint32_t args[TREV_BPRINT_MAX_WORDS];
	struct printk_buf fb;
	struct bprint_entry *e;
	size_t words;
	int state;

	if (trev_unlikely(!tr))
		return 0;
	state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
	if (trev_unlikely(state == 0))
		state = printk_site_setup(site, true);
	if (trev_likely(state >= 2)) {
		/* Only ints: the record's size is known, save straight into it. */
		words = (size_t)state - 2;
		e = printk_reserve(tr, &trev__ftrace_event_bprint,
				   (unsigned int)(sizeof(*e) + words * sizeof(uint32_t)), &fb);
		if (!e)
			return 0;
		e->ip = ip;
		e->fmt = site->interned;
		bprint_save_ints(e->buf, words, ap);
		printk_commit(&fb);
		return (int)(words * sizeof(uint32_t));
	}
	if (trev_unlikely(state <= 0)) {
		/* The call site's format, checked by the compiler there. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		return printk_string(ip, site->fmt, ap);
#pragma GCC diagnostic pop
	}
	words = trev__bprint_save(args, TREV_BPRINT_MAX_WORDS, site->spec, ap);
	/* More than fits: the kernel's trace_vbprintk() drops the event too. */
	if (trev_unlikely(words > TREV_BPRINT_MAX_WORDS))
		return 0;
	e = printk_reserve(tr, &trev__ftrace_event_bprint,
			   (unsigned int)(sizeof(*e) + words * sizeof(uint32_t)), &fb);
	if (!e)
		return 0;
	e->ip = ip;
	e->fmt = site->interned;
	memcpy(e->buf, args, words * sizeof(uint32_t));
	printk_commit(&fb);
	return (int)(words * sizeof(uint32_t));
}

/* trace_puts() of a constant string, for both ABIs. */
static inline __attribute__((always_inline)) int printk_bputs(struct printk_body *site,
							       unsigned long ip)
{
	struct trev_trace_array *tr = printk_instance();
	struct printk_buf fb;
	struct bputs_entry *e;
	int state;

	if (trev_unlikely(!tr))
		return 0;
	state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
	if (trev_unlikely(state == 0))
		state = printk_site_setup(site, false);
	if (trev_unlikely(state <= 0))
		return trev_trace_puts(ip, site->fmt, strlen(site->fmt));
	e = printk_reserve(tr, &trev__ftrace_event_bputs, sizeof(*e), &fb);
	if (!e)
		return 0;
	e->ip = ip;
	e->str = site->interned;
	printk_commit(&fb);
	return 1;
}

int trev_trace_bprintk(struct trev_printk_site *site, unsigned long ip, ...)
{
	struct printk_body *body = printk_site_v1(site);
	va_list ap;
	int ret;

	if (trev_unlikely(!body))
		return 0;
	va_start(ap, ip);
	ret = printk_bprintk(body, ip, ap);
	va_end(ap);
	return ret;
}

int trev_trace_bputs(struct trev_printk_site *site, unsigned long ip)
{
	struct printk_body *body = printk_site_v1(site);

	return trev_likely(body) ? printk_bputs(body, ip) : 0;
}

/* ABI 0's entry points, under the names trev 0.1.0 exported: a site without a header. */
TREV_API int trev__trace_bprintk_v0(struct printk_body *site, unsigned long ip, ...)
	__asm__("trev_trace_bprintk");
TREV_API int trev__trace_bputs_v0(struct printk_body *site, unsigned long ip)
	__asm__("trev_trace_bputs");

int trev__trace_bprintk_v0(struct printk_body *site, unsigned long ip, ...)
{
	va_list ap;
	int ret;

	va_start(ap, ip);
	ret = printk_bprintk(site, ip, ap);
	va_end(ap);
	return ret;
}

int trev__trace_bputs_v0(struct printk_body *site, unsigned long ip)
{
	return printk_bputs(site, ip);
}

/* As the kernel's __trace_puts(): the text, with a newline added if missing. */
int trev_trace_puts(unsigned long ip, const char *str, size_t size)
{
	struct trev_trace_array *tr = printk_instance();
	struct printk_buf fb;
	struct print_entry *e;
	size_t alloc;

	if (!tr)
		return 0;
	if (size > PRINTK_BUF_SIZE - 2)
		size = PRINTK_BUF_SIZE - 2;
	alloc = sizeof(*e) + size + 2;
	e = printk_reserve(tr, &trev__ftrace_event_print, (unsigned int)alloc, &fb);
	if (!e)
		return 0;
	e->ip = ip;
	memcpy(e->buf, str, size);
	if (size == 0 || e->buf[size - 1] != '\n')
		e->buf[size++] = '\n';
	e->buf[size] = '\0';
	printk_commit(&fb);
	return (int)size;
}

/* ------------------------------------------------------------------ */
/* printk_formats                                                       */

int trev__printk_formats_text(char **text)
{
	struct trev_buf b = TREV_BUF_INIT;

	for (struct printk_fmt *p = atomic_load_explicit(&fmts, memory_order_acquire); p;
	     p = p->next) {
		/* The kernel's t_show(): escapes for \n, \t, \\ and \". */
		trev__buf_printf(&b, "0x%lx : \"", (unsigned long)p->fmt);
		for (const char *c = p->fmt; *c; c++) {
			switch (*c) {
			case '\n': trev__buf_puts(&b, "\\n"); break;
			case '\t': trev__buf_puts(&b, "\\t"); break;
			case '\\': trev__buf_puts(&b, "\\\\"); break;
			case '"': trev__buf_puts(&b, "\\\""); break;
			default: trev__buf_putc(&b, *c); break;
			}
		}
		trev__buf_puts(&b, "\"\n");
	}
	/* A failed growth is kept by the buffer: looked at once, by the detach. */
	*text = trev__buf_detach(&b);
	return *text ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* trace_marker and trace_marker_raw                                    */

/*
 * Marks trace_marker's records: their ip is this function's, which prints
 * as the kernel's writer both here and in the kallsyms that trev record
 * writes for this process from its file's symbols.
 */
static __attribute__((noinline, used)) void tracing_mark_write(void)
{
	__asm__ volatile("");
}
#define MARKER_IP	((unsigned long)&tracing_mark_write)

unsigned long trev__marker_ip(void)
{
	return MARKER_IP;
}

/*
 * Write one record of @call into @tr's buffer, outside any probe. The
 * record goes through a file of the instance made up on the stack: only
 * its instance and event are read by the reserve.
 */
static void *marker_reserve(struct trev_trace_array *tr, struct trev_event_call *call,
			    unsigned int len, struct trev_event_file *file,
			    struct printk_buf *fb)
{
	*file = (struct trev_event_file){ .call = call, .tr = tr };
	return printk_reserve_file(fb, file, len);
}

/*
 * @tr's file of ftrace/print, where its trigger file puts triggers, or NULL
 * when it has none: the top instance's is the event's own; a named
 * instance's is made by its first trigger and lives as long as the
 * instance, which cannot go while its trace_marker is being written.
 */
static struct trev_event_file *marker_print_file(struct trev_trace_array *tr)
{
	struct trev_event_file *file;

	trev__events_read_lock();	/* tr->files may grow meanwhile */
	file = trev__event_file(tr, &trev__ftrace_event_print, false);
	trev__events_read_unlock();
	return file;
}

/*
 * As the kernel's tracing_mark_write(): the record is reserved first, the
 * triggers of the instance's ftrace/print see it with its text as written
 * (no newline added yet), then it is committed, then the post triggers run.
 * A snapshot trigger so swaps the buffers with this record reserved in
 * the old one: it commits there, into the new snapshot.
 */
ssize_t trev__marker_write(struct trev_trace_array *tr, const char *text, size_t size,
			   pid_t pid)
{
	struct trev_event_file file, *pf = marker_print_file(tr);
	struct trev_event_trigger *triggers;
	struct printk_buf fb;
	struct print_entry *e;
	size_t max = TREV_MARKER_MAX;
	unsigned int tt = 0, len;

	if (size > max)
		size = max;
	len = (unsigned int)(sizeof(*e) + size + 2);
	e = marker_reserve(tr, &trev__ftrace_event_print, len, &file, &fb);
	if (!e)
		return -EBADF;	/* as the kernel when the buffer refuses (tracing off) */
	if (pid)
		e->ent.pid = pid;
	e->ip = MARKER_IP;
	memcpy(e->buf, text, size);
	e->buf[size] = '\0';
	/* Inside the reserve's RCU read section: a trigger removed meanwhile is not freed. */
	triggers = pf ? __atomic_load_n(&pf->triggers, __ATOMIC_ACQUIRE) : NULL;
	if (triggers)
		tt = trev__event_triggers_call(pf, e, len);
	if (size == 0 || text[size - 1] != '\n')
		memcpy(e->buf + size, "\n", 2);
	trev_event_buffer_commit(&fb.fb);
	if (tt)
		trev__event_triggers_post_call(pf, tt);
	trev_rcu_read_unlock(fb.rcu);
	return (ssize_t)size;
}

ssize_t trev__marker_raw_write(struct trev_trace_array *tr, const void *data, size_t size,
			       pid_t pid)
{
	struct trev_event_file file;
	struct printk_buf fb;
	struct raw_data_entry *e;
	size_t len;

	if (size < sizeof(unsigned int) || size > TREV_MARKER_MAX)
		return -EINVAL;
	len = size - sizeof(unsigned int);
	e = marker_reserve(tr, &trev__ftrace_event_raw_data,
			   (unsigned int)(sizeof(*e) + len), &file, &fb);
	if (!e)
		return -EBADF;
	if (pid)
		e->ent.pid = pid;
	memcpy(&e->id, data, sizeof(e->id));
	memcpy(e->buf, (const char *)data + sizeof(unsigned int), len);
	printk_commit(&fb);
	return (ssize_t)size;
}

/* ------------------------------------------------------------------ */
/* The built-in events                                                  */

/* seq_print_ip_sym(): the function that made the record. */
static void printk_ip(struct trev_trace_iter *iter, unsigned long ip)
{
	if (ip == MARKER_IP) {
		trev_seq_puts(&iter->seq, "tracing_mark_write");
		return;
	}
	trev__sym_print_ip(&iter->seq, ip, iter->trace_flags);
}

/*
 * Whether @p is an interned format: a bprint or bputs record holds a
 * pointer, which a reader follows only when it is one of ours (a record
 * written by other means, or damaged, must not crash the reader).
 */
static bool printk_known(const char *p)
{
	for (const struct printk_fmt *f = atomic_load_explicit(&fmts, memory_order_acquire); f;
	     f = f->next)
		if (f->fmt == p)
			return true;
	return false;
}

static int print_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct print_entry *e = (struct print_entry *)(void *)iter->ent;
	int max = (int)(iter->ent_size - sizeof(*e));

	(void)call;
	if (iter->ent_size < sizeof(*e))
		return -1;
	printk_ip(iter, e->ip);
	return trev_seq_printf(&iter->seq, ": %.*s", max, e->buf);
}

static int bprint_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct bprint_entry *e = (struct bprint_entry *)(void *)iter->ent;

	(void)call;
	if (iter->ent_size < sizeof(*e))
		return -1;
	printk_ip(iter, e->ip);
	trev_seq_puts(&iter->seq, ": ");
	if (!printk_known(e->fmt))
		return -1;
	return trev__bprint_format(&iter->seq, e->fmt, e->buf, iter->ent_size - sizeof(*e));
}

static int bputs_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct bputs_entry *e = (struct bputs_entry *)(void *)iter->ent;

	(void)call;
	if (iter->ent_size < sizeof(*e))
		return -1;
	printk_ip(iter, e->ip);
	trev_seq_puts(&iter->seq, ": ");
	if (!printk_known(e->str))
		return -1;
	return trev_seq_puts(&iter->seq, e->str);
}

/* Overflowing iter->seq is not a failure: the line is ended where it stopped. */
int trev__printk_msg_only(struct trev_trace_iter *iter)
{
	switch (iter->ent->type) {
	case TREV_TYPE_PRINT: {
		struct print_entry *e = (struct print_entry *)(void *)iter->ent;

		if (iter->ent_size < sizeof(*e))
			return -1;
		trev_seq_printf(&iter->seq, "%.*s", (int)(iter->ent_size - sizeof(*e)), e->buf);
		return 0;
	}
	case TREV_TYPE_BPRINT: {
		struct bprint_entry *e = (struct bprint_entry *)(void *)iter->ent;

		if (iter->ent_size < sizeof(*e) || !printk_known(e->fmt))
			return -1;
		trev__bprint_format(&iter->seq, e->fmt, e->buf, iter->ent_size - sizeof(*e));
		return 0;
	}
	case TREV_TYPE_BPUTS: {
		struct bputs_entry *e = (struct bputs_entry *)(void *)iter->ent;

		if (iter->ent_size < sizeof(*e) || !printk_known(e->str))
			return -1;
		trev_seq_puts(&iter->seq, e->str);
		return 0;
	}
	default:
		return -1;
	}
}

/* The kernel's trace_raw_data(): "# <id> buf: <bytes in hex>". */
static int raw_data_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct raw_data_entry *e = (struct raw_data_entry *)(void *)iter->ent;

	(void)call;
	if (iter->ent_size < sizeof(*e))
		return -1;
	trev_seq_printf(&iter->seq, "# %x buf:", e->id);
	for (size_t i = 0; i < iter->ent_size - sizeof(*e); i++)
		trev_seq_printf(&iter->seq, " %02x", (unsigned char)e->buf[i]);
	return trev_seq_putc(&iter->seq, '\n');
}

#define FIELD(call, type, st, member, sign)						\
	trev_event_define_field(call, type, #member, (int)offsetof(struct st, member),	\
				(int)sizeof(((struct st *)0)->member), sign,		\
				TREV_FILTER_OTHER)

static int print_fields(struct trev_event_call *call)
{
	return FIELD(call, "unsigned long", print_entry, ip, 0) ?:
	       trev_event_define_field(call, "char[]", "buf", (int)offsetof(struct print_entry, buf),
				       0, 1, TREV_FILTER_OTHER);
}

static int bprint_fields(struct trev_event_call *call)
{
	return FIELD(call, "unsigned long", bprint_entry, ip, 0) ?:
	       FIELD(call, "const char *", bprint_entry, fmt, 0) ?:
	       trev_event_define_field(call, "u32[]", "buf", (int)offsetof(struct bprint_entry, buf),
				       0, 0, TREV_FILTER_OTHER);
}

static int bputs_fields(struct trev_event_call *call)
{
	return FIELD(call, "unsigned long", bputs_entry, ip, 0) ?:
	       FIELD(call, "const char *", bputs_entry, str, 0);
}

static int raw_data_fields(struct trev_event_call *call)
{
	return FIELD(call, "unsigned int", raw_data_entry, id, 0) ?:
	       trev_event_define_field(call, "char[]", "buf",
				       (int)offsetof(struct raw_data_entry, buf), 0, 1,
				       TREV_FILTER_OTHER);
}

static const struct trev_event_class print_class = { TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, print_fields,
						     sizeof(struct print_entry) };
static const struct trev_event_class bprint_class = { TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, bprint_fields,
						      sizeof(struct bprint_entry) };
static const struct trev_event_class bputs_class = { TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, bputs_fields,
						     sizeof(struct bputs_entry) };

static const struct trev_event_class raw_data_class = { TREV_ABI_HDR(struct trev_event_class), "ftrace", NULL, raw_data_fields,
							sizeof(struct raw_data_entry) };

struct trev_event_call trev__ftrace_event_print = {
	TREV_ABI_HDR(struct trev_event_call), &print_class, "print", NULL, "\"%ps: %s\", (void *)REC->ip, REC->buf",
	print_output, TREV_EVENT_FL_FTRACE, 0, NULL
};
struct trev_event_call trev__ftrace_event_bprint = {
	TREV_ABI_HDR(struct trev_event_call), &bprint_class, "bprint", NULL, "\"%ps: %s\", (void *)REC->ip, REC->fmt",
	bprint_output, TREV_EVENT_FL_FTRACE, 0, NULL
};
struct trev_event_call trev__ftrace_event_bputs = {
	TREV_ABI_HDR(struct trev_event_call), &bputs_class, "bputs", NULL, "\"%ps: %s\", (void *)REC->ip, REC->str",
	bputs_output, TREV_EVENT_FL_FTRACE, 0, NULL
};
struct trev_event_call trev__ftrace_event_raw_data = {
	TREV_ABI_HDR(struct trev_event_call), &raw_data_class, "raw_data", NULL, "\"id:%04x %08x\", REC->id, (int)REC->buf[0]",
	raw_data_output, TREV_EVENT_FL_FTRACE, 0, NULL
};

/* ------------------------------------------------------------------ */
/* The option raw's lines (output.h's printers)                         */

/* The kernel's trace_print_raw(): "# ip text". */
static void print_raw(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct print_entry *e = (struct print_entry *)(void *)iter->ent;
	int max = (int)(iter->ent_size - offsetof(struct print_entry, buf));

	(void)call;
	trev_seq_printf(&iter->seq, "# %lx %.*s", e->ip, max, e->buf);
}

/* The kernel's trace_bprint_raw(): ": ip : text". */
static void bprint_raw(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct bprint_entry *e = (struct bprint_entry *)(void *)iter->ent;

	(void)call;
	trev_seq_printf(&iter->seq, ": %lx : ", e->ip);
	trev__bprint_format(&iter->seq, e->fmt, e->buf,
			    iter->ent_size - offsetof(struct bprint_entry, buf));
}

/* The kernel's trace_bputs_raw(): ": ip : text". */
static void bputs_raw(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	struct bputs_entry *e = (struct bputs_entry *)(void *)iter->ent;

	(void)call;
	trev_seq_printf(&iter->seq, ": %lx : %s", e->ip, e->str);
}

/* The kernel prints raw_data one way, whatever the option. */
static void raw_data_raw(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	call->output(iter, call);
}

static const struct trev_event_printer printk_printers[] = {
	{ .type = TREV_TYPE_PRINT, .raw = print_raw },
	{ .type = TREV_TYPE_BPRINT, .raw = bprint_raw },
	{ .type = TREV_TYPE_BPUTS, .raw = bputs_raw },
	{ .type = TREV_TYPE_RAW_DATA, .raw = raw_data_raw },
};

void trev__ftrace_events_register(void)
{
	for (size_t i = 0; i < sizeof(printk_printers) / sizeof(printk_printers[0]); i++)
		trev__event_printer_register(&printk_printers[i]);
	trev__events_register_builtin(&trev__ftrace_event_print, TREV_TYPE_PRINT);
	trev__events_register_builtin(&trev__ftrace_event_bprint, TREV_TYPE_BPRINT);
	trev__events_register_builtin(&trev__ftrace_event_kernel_stack, TREV_TYPE_KERNEL_STACK);
	trev__events_register_builtin(&trev__ftrace_event_bputs, TREV_TYPE_BPUTS);
	trev__events_register_builtin(&trev__ftrace_event_raw_data, TREV_TYPE_RAW_DATA);
}
