/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe events (the kernel's trace_kprobe.c and trace_uprobe.c): each
 * definition an event registered at run time in its group, with a
 * tracepoint of its own whose probe writes the record. The site under it
 * is a patchable entry of the function tracer (trev__ftrace_probe_site())
 * when the target is the first byte of a function built with trev's flags,
 * else a probe site of src/patch/probe_site.c at any instruction of any
 * loaded object; either is patched while the event is enabled in some
 * instance. A target in an object not loaded yet waits for its dlopen().
 * docs/probes.md.
 *
 * A record is laid out as the kernel's kprobe and uprobe records:
 *
 *	OFFSET		SIZE	MEANING
 *	0		8	struct trev_entry (common fields)
 *	8		8	__probe_ip: the probed site (p:), or
 *	8		8	__probe_func: the function's site (r:)
 *	16		8	__probe_ret_ip: where it returned to (r: only)
 *	16 or 24	...	each argument's slot, in the order defined: its type's
 *				size times [N]; a string's is a __data_loc word
 *				(length << 16 | offset, length 0: the read faulted)
 *	after the slots		the strings, each with its NUL
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trev/rcu.h>
#include <trev/ring_buffer.h>
#include <trev/trace_event.h>
#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/rcu.h"
#include "events/events_internal.h"
#include "ftrace/fgraph.h"
#include "ftrace/ftrace.h"
#include "patch/probe_site.h"
#include "probe/probe.h"
#include "sym/elf_find.h"
#include "sym/symbols.h"

/* Probe events at most: each has an enable hook of its own (probe_regfns[]). */
#define PROBE_MAX	200

struct trev_probe {
	struct trev_event_call call;	/* registered while the probe exists */
	struct trev_event_class klass;
	struct trev_tracepoint tp;	/* enabling registers probe_write() here */
	struct trev_probe_def def;
	bool uprobe;			/* listed in uprobe_events' form, else kprobe_events' */
	unsigned int slot;		/* its index in probe_slots[] and probe_regfns[] */
	unsigned int fixed;		/* the record's fixed part */
	unsigned int base;		/* where the arguments start (after the common fields) */
	_Atomic unsigned long nhit;	/* hits while enabled (kprobe_profile, uprobe_profile) */
	struct trev_probe_fast *fast;	/* compiled for the fast call (probe_fast.c); NULL: not */
	struct trev_probe *next;	/* every probe, oldest first (probe_lock) */
	/* Where it sits (pr_state_lock; addr also read by the hits, atomically). */
	uintptr_t addr;			/* the site; 0 while its object is not loaded */
	bool entry;			/* addr is a patchable entry (the function tracer's) */
	uintptr_t func;			/* a probe site's function [func, func + fsize); 0: not */
	size_t fsize;			/* known, or an int3 wanted (pr_locate()) */
	char *obj;			/* its object's file, resolved; NULL while not loaded */
	uintptr_t obj_lo;		/* where that object is mapped (its lowest PT_LOAD) */
	bool in_lib;			/* counted in pr_lib_probes */
	bool want;			/* enabled: on whenever its object is loaded */
	bool on;			/* its site has it */
	struct pr_site *ps;		/* the probe site it shares, while on (not entry) */
	struct trev_probe *snext;	/* every probe (pr_state_lock) */
};

/*
 * A probe site of src/patch/ shared by the probes at one address
 * (pr_state_lock); its handler finds them by the address in probe_tab.
 */
struct pr_site {
	uintptr_t addr;
	struct trev_site *site;
	unsigned int users;
	/*
	 * Its only probe, an entry's (not a return's), while it has no other:
	 * the handler's short way (pr_site_hit()). A probe is freed only after
	 * a grace period that follows its leaving, as the table's.
	 */
	_Atomic(struct trev_probe *) solo;
	struct pr_site *next;
};

/* The probes, by slot (probe_lock); and what the handler reads (RCU). */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trev_probe *probes;
static struct trev_probe *probe_slots[PROBE_MAX];

struct probe_tab {
	size_t n;
	struct trev_probe *p[];
};
static _Atomic(struct probe_tab *) probe_tab;

/*
 * Where the probes sit: taken by enabling (under the tracepoint's lock),
 * by definitions (under probe_lock) and at the return of dlopen() and
 * dlclose() (no lock of trev's held), never inside an RCU read section.
 * Nothing under it takes probe_lock or the tracepoint's lock, nor the
 * loader's lock except at a definition (dl_iterate_phdr()).
 */
static pthread_mutex_t pr_state_lock = PTHREAD_MUTEX_INITIALIZER;
static struct trev_probe *pr_states;	/* (pr_state_lock) */
static struct pr_site *pr_sites;	/* (pr_state_lock) */
static _Atomic unsigned int pr_lib_probes;	/* probes outside the program, or waiting */
static uintptr_t pr_watch_open, pr_watch_close;	/* dlopen(), dlclose(): watched (set once) */

#define probe_of(c)	((struct trev_probe *)(void *)((char *)(c) - \
				offsetof(struct trev_probe, call)))

/* ------------------------------------------------------------------ */
/* The record                                                           */

static int probe_define_fields(struct trev_event_call *call)
{
	struct trev_probe *pr = probe_of(call);
	int ret;

	if (pr->def.is_return) {
		ret = trev_event_define_field(call, "unsigned long", "__probe_func", 8, 8, 0,
					      TREV_FILTER_OTHER);
		if (!ret)
			ret = trev_event_define_field(call, "unsigned long", "__probe_ret_ip", 16,
						      8, 0, TREV_FILTER_OTHER);
	} else {
		ret = trev_event_define_field(call, "unsigned long", "__probe_ip", 8, 8, 0,
					      TREV_FILTER_OTHER);
	}
	for (unsigned int i = 0; !ret && i < pr->def.nr_args; i++) {
		const struct trev_probe_arg *a = &pr->def.args[i];
		char type[64];

		if (a->count)
			snprintf(type, sizeof(type), "%s[%u]", a->type->fmttype, a->count);
		else
			snprintf(type, sizeof(type), "%s", a->type->fmttype);
		ret = trev_event_define_field(call, type, a->name, (int)(pr->base + a->offset),
					      (int)(a->type->size * (a->count ? a->count : 1)),
					      a->type->is_signed, TREV_FILTER_OTHER);
	}
	return ret;
}

/*
 * The kernel's print_kprobe_event() and print_kretprobe_event():
 * "name: (func+0x0/0x1b) arg1=0x5", "name: (caller+0x2a/0x60 <- func) ...".
 */
static int probe_output(struct trev_trace_iter *iter, struct trev_event_call *call)
{
	const struct trev_probe *pr = probe_of(call);
	const unsigned char *rec = (const unsigned char *)iter->ent;
	struct trev_seq *s = &iter->seq;
	unsigned long a, b;
	char sym[256];

	trev_event_output_prep(iter, call);
	if (iter->ent_size < pr->fixed)
		return trev_seq_puts(s, "<record too short>\n");
	memcpy(&a, rec + 8, 8);
	trev_seq_putc(s, '(');
	if (pr->def.is_return) {
		memcpy(&b, rec + 16, 8);
		trev__sym_snprint(sym, sizeof(sym), b, TREV_SYM_OFFSET);
		trev_seq_printf(s, "%s <- ", sym);
		trev__sym_snprint(sym, sizeof(sym), a, TREV_SYM_NAME);
	} else {
		trev__sym_snprint(sym, sizeof(sym), a, TREV_SYM_OFFSET);
	}
	trev_seq_printf(s, "%s)", sym);
	for (unsigned int i = 0; i < pr->def.nr_args; i++)
		trev__probe_print_arg(s, &pr->def.args[i], rec, iter->ent_size, pr->base);
	return trev_seq_putc(s, '\n');
}

/* The kernel's __set_print_fmt(). */
static char *probe_print_fmt(const struct trev_probe *pr)
{
	struct trev_buf b = TREV_BUF_INIT;
	int ret = trev__buf_puts(&b, pr->def.is_return ? "\"(%lx <- %lx)" : "\"(%lx)");

	for (unsigned int i = 0; !ret && i < pr->def.nr_args; i++) {
		const struct trev_probe_arg *a = &pr->def.args[i];

		ret = trev__buf_printf(&b, " %s=", a->name);
		if (!ret && a->count) {
			ret = trev__buf_printf(&b, "{%s", a->type->fmt);
			for (unsigned int j = 1; !ret && j < a->count; j++)
				ret = trev__buf_printf(&b, ",%s", a->type->fmt);
			if (!ret)
				ret = trev__buf_putc(&b, '}');
		} else if (!ret) {
			ret = trev__buf_puts(&b, a->type->fmt);
		}
	}
	if (!ret)
		ret = trev__buf_puts(&b, pr->def.is_return ?
				     "\", REC->__probe_func, REC->__probe_ret_ip" :
				     "\", REC->__probe_ip");
	for (unsigned int i = 0; !ret && i < pr->def.nr_args; i++) {
		const struct trev_probe_arg *a = &pr->def.args[i];
		if (a->count)
			for (unsigned int j = 0; !ret && j < a->count; j++)
				ret = a->dynamic ?
				      trev__buf_printf(&b, ", __get_str(%s[%u])", a->name, j) :
				      trev__buf_printf(&b, ", REC->%s[%u]", a->name, j);
		else
			ret = a->dynamic ? trev__buf_printf(&b, ", __get_str(%s)", a->name) :
					   trev__buf_printf(&b, ", REC->%s", a->name);
	}
	if (ret) {
		trev__buf_free(&b);
		return NULL;
	}
	return trev__buf_detach(&b);
}

/* The probe on the event's tracepoint, one per instance it is enabled in; @data is the file. */
static void probe_write(void *data, const struct trev_probe *pr, const struct trev_regs *regs,
			unsigned long func, unsigned long ret_ip)
{
	unsigned char buf[TREV_RB_MAX_EVENT];
	struct trev_event_file *file = data;
	struct trev_event_buffer fb;
	unsigned int len = pr->fixed;
	unsigned char *rec;

	memset(buf, 0, pr->fixed);
	memcpy(buf + 8, &func, 8);
	if (pr->def.is_return)
		memcpy(buf + 16, &ret_ip, 8);
	for (unsigned int i = 0; i < pr->def.nr_args; i++) {
		const struct trev_probe_arg *a = &pr->def.args[i];

		len += trev__probe_fetch(a, regs, buf + pr->base + a->offset, buf + len, len,
					 (unsigned int)sizeof(buf) - len);
	}
	rec = trev_event_buffer_reserve(&fb, file, len);
	if (!rec)
		return;
	memcpy(rec + sizeof(struct trev_entry), buf + sizeof(struct trev_entry),
	       len - sizeof(struct trev_entry));
	trev_event_buffer_commit(&fb);
}

typedef void (*probe_write_fn)(void *data, const struct trev_probe *pr,
			       const struct trev_regs *regs, unsigned long func,
			       unsigned long ret_ip);

/* Fire @pr in every instance where it is enabled. */
static void probe_fire(struct trev_probe *pr, const struct trev_regs *regs, unsigned long func,
		       unsigned long ret_ip)
{
	struct trev_tracepoint_func *f;

	if (!trev_static_key_false(&pr->tp.key))
		return;
	atomic_fetch_add_explicit(&pr->nhit, 1, memory_order_relaxed);
	f = __atomic_load_n(&pr->tp.funcs, __ATOMIC_ACQUIRE);
	for (; f && f->func; f++)
		((probe_write_fn)f->func)(f->data, pr, regs, func, ret_ip);
}

/*
 * The function tracer's call at a probed entry (trev__ftrace_probe_hook_set()):
 * the registers as they were at the site, then each probe on it.
 * Context: the trampoline's full call, inside its RCU read section.
 */
static bool probe_hit(unsigned long ip, unsigned long *slot, const struct trev_ft_cs *cs)
{
	struct probe_tab *t = atomic_load_explicit(&probe_tab, memory_order_acquire);
	struct trev_regs regs = {
		.r15 = cs->r15, .r14 = cs->r14, .r13 = cs->r13, .r12 = cs->r12,
		.bp = cs->bp, .bx = cs->bx, .r10 = slot[-10], .r9 = slot[-9],
		.r8 = slot[-8], .ax = slot[-3], .cx = slot[-7], .dx = slot[-6],
		.si = slot[-5], .di = slot[-4], .orig_ax = (unsigned long)-1,
		.ip = ip, .sp = (unsigned long)slot,
	};

	bool ret = false;

	for (size_t i = 0; t && i < t->n; i++) {
		if (__atomic_load_n(&t->p[i]->addr, __ATOMIC_RELAXED) != ip || !t->p[i]->entry)
			continue;
		if (t->p[i]->def.is_return)
			ret |= trev_static_key_false(&t->p[i]->tp.key);
		else
			probe_fire(t->p[i], &regs, ip, 0);
	}
	if (t)
		trev_tsan_release(t);
	return ret;
}

static void pr_rescan(void);

/*
 * A function with a return probe returned (function_graph's frame pushed
 * for it, trev__fg_entry_probe(), at a patchable entry or by a probe site's
 * handler): the registers a return has, rax and rdx as the function left
 * them (the return trampoline saved them below @slot), ip the return
 * address, sp above the return slot; the others 0 (they are the caller's
 * again). dlopen() or dlclose() returned (pr_watch()): the objects are
 * looked at again. Context: the return trampoline's full call, outside any
 * RCU read section.
 */
static void probe_exit(unsigned long func, unsigned long ret, unsigned long *slot)
{
	struct trev_regs regs = {
		.ax = slot[-2], .dx = slot[-3], .orig_ax = (unsigned long)-1,
		.ip = ret, .sp = (unsigned long)(slot + 1),
	};
	struct trev_rcu_section rcu;
	struct probe_tab *t;

	if (func && (func == pr_watch_open || func == pr_watch_close))
		pr_rescan();
	rcu = trev_rcu_read_lock();
	t = atomic_load_explicit(&probe_tab, memory_order_acquire);
	for (size_t i = 0; t && i < t->n; i++)
		if (__atomic_load_n(&t->p[i]->addr, __ATOMIC_RELAXED) == func &&
		    t->p[i]->def.is_return)
			probe_fire(t->p[i], &regs, func, ret);
	if (t)
		trev_tsan_release(t);
	trev_rcu_read_unlock(rcu);
}

/*
 * A probe site's handler (src/patch/probe_site.c): each probe at @regs->ip
 * that is not at a patchable entry. A return probe pushes a function_graph
 * frame on the return address at 0(%sp) (the site is the function's first
 * instruction), whose return calls probe_exit(), as at a patchable entry.
 * Context: the probed thread, perhaps in a signal handler.
 */
static bool pr_site_fire(struct trev_regs *regs)
{
	struct trev_rcu_section rcu = trev_rcu_read_lock();
	struct probe_tab *t = atomic_load_explicit(&probe_tab, memory_order_acquire);
	bool ret = false;

	for (size_t i = 0; t && i < t->n; i++) {
		struct trev_probe *pr = t->p[i];

		if (__atomic_load_n(&pr->addr, __ATOMIC_RELAXED) != regs->ip || pr->entry)
			continue;
		if (pr->def.is_return)
			ret |= trev_static_key_false(&pr->tp.key);
		else if (!pr->fast || pr->fast->site != regs->ip ||
			 trev__probe_fast_regs(pr->fast, regs))
			probe_fire(pr, regs, regs->ip, 0);
	}
	if (t)
		trev_tsan_release(t);
	trev_rcu_read_unlock(rcu);
	return ret;
}

static void pr_site_hit(struct trev_regs *regs, void *data)
{
	struct pr_site *ps = data;
	struct trev_rcu_section rcu = trev_rcu_read_lock();
	struct trev_probe *pr = atomic_load_explicit(&ps->solo, memory_order_acquire);
	bool done;

	/* The site's one probe, of numbers: the fast call's record, without a walk of the table. */
	done = pr && pr->fast && pr->fast->site == regs->ip && !trev__probe_fast_regs(pr->fast, regs);
	trev_rcu_read_unlock(rcu);
	if (!done && pr_site_fire(regs))
		trev__fg_entry_probe(regs->ip, (unsigned long *)regs->sp, false);
}

/*
 * The handler of the sites on dlopen() and dlclose(): a frame on their
 * return (probe_exit() then looks at the objects), while some probe is in
 * a library or waits for one; not for RTLD_NOLOAD, which loads nothing.
 */
static void pr_watch_hit(struct trev_regs *regs, void *data)
{
	bool ret = pr_site_fire(regs);	/* the user's probes on dlopen() or dlclose() */

	(void)data;
	if (atomic_load_explicit(&pr_lib_probes, memory_order_relaxed) &&
	    !(regs->ip == pr_watch_open && (regs->si & RTLD_NOLOAD)))
		ret = true;
	if (ret)
		trev__fg_entry_probe(regs->ip, (unsigned long *)regs->sp, false);
}

/* ------------------------------------------------------------------ */
/* The loaded objects, and where a target is in them                   */

/* One loaded object, as dl_iterate_phdr() told it. */
struct pr_obj {
	char *path;		/* its file, resolved (realpath()) */
	char *mod;		/* its module name: the file's name to the first dot ("libc") */
	uintptr_t bias;		/* run-time minus link-time address */
	uintptr_t lo, hi;	/* its PT_LOAD segments' span */
	bool main;		/* the program */
};

struct pr_objs {
	struct pr_obj *o;
	size_t n;
	int err;
	unsigned long long gen;	/* the loader's dlpi_adds + dlpi_subs when it was taken */
};

/* The last snapshot, taken again when the loader's counts change (pr_objs_lock). */
static pthread_mutex_t pr_objs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pr_objs pr_objs_last;
static bool pr_objs_have;

/* The loader's counts of loads and unloads: the first object's callback reads them. */
static int pr_gen_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*(unsigned long long *)arg = info->dlpi_adds + info->dlpi_subs;
	return 1;
}

/* Context: dl_iterate_phdr(), the loader's lock held: only copies. */
static int pr_objs_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pr_objs *os = arg;
	bool main = os->n == 0 && (!info->dlpi_name || !*info->dlpi_name);
	const char *name = main ? "/proc/self/exe" : info->dlpi_name;
	struct pr_obj o = { .bias = info->dlpi_addr, .lo = UINTPTR_MAX, .main = main };
	const char *base;
	struct pr_obj *n;

	(void)size;
	if (os->err || !name || !*name)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < o.lo)
			o.lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > o.hi)
			o.hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (o.lo >= o.hi)
		return 0;
	o.path = realpath(name, NULL);
	if (!o.path)
		return 0;	/* the vDSO; a file deleted since */
	base = strrchr(info->dlpi_name && *info->dlpi_name ? info->dlpi_name : o.path, '/');
	base = base ? base + 1 : info->dlpi_name;
	o.mod = main ? NULL : strndup(base, strcspn(base, ".") ? strcspn(base, ".") : strlen(base));
	n = realloc(os->o, (os->n + 1) * sizeof(*os->o));
	if (!n || (!main && !o.mod)) {
		free(n ? NULL : o.mod);
		free(o.path);
		if (n)
			os->o = n;
		os->err = -ENOMEM;
		return 1;
	}
	os->o = n;
	os->o[os->n++] = o;
	return 0;
}

static void pr_objs_free(struct pr_objs *os)
{
	for (size_t i = 0; i < os->n; i++) {
		free(os->o[i].path);
		free(os->o[i].mod);
	}
	free(os->o);
	memset(os, 0, sizeof(*os));
}

/* A copy of @from. */
static int pr_objs_copy(struct pr_objs *to, const struct pr_objs *from)
{
	memset(to, 0, sizeof(*to));
	to->o = calloc(from->n ? from->n : 1, sizeof(*to->o));
	if (!to->o)
		return -ENOMEM;
	for (size_t i = 0; i < from->n; i++) {
		to->o[i] = from->o[i];
		to->o[i].path = strdup(from->o[i].path);
		to->o[i].mod = from->o[i].mod ? strdup(from->o[i].mod) : NULL;
		to->n++;
		if (!to->o[i].path || (from->o[i].mod && !to->o[i].mod)) {
			pr_objs_free(to);
			return -ENOMEM;
		}
	}
	to->gen = from->gen;
	return 0;
}

/*
 * The objects loaded now, the program first: the last snapshot while the
 * loader's counts of loads and unloads are the same, else a new one.
 * Context: not under the loader's lock (dl_iterate_phdr() takes it).
 */
static int pr_objs_get(struct pr_objs *os)
{
	unsigned long long gen = ~0ull;
	int ret;

	dl_iterate_phdr(pr_gen_cb, &gen);
	pthread_mutex_lock(&pr_objs_lock);
	if (!pr_objs_have || gen == ~0ull || pr_objs_last.gen != gen) {
		memset(os, 0, sizeof(*os));
		dl_iterate_phdr(pr_objs_cb, os);
		ret = os->err;
		if (ret) {
			pr_objs_free(os);
			goto out_unlock;
		}
		os->gen = gen;
		pr_objs_free(&pr_objs_last);
		pr_objs_have = false;
		if (gen != ~0ull && !pr_objs_copy(&pr_objs_last, os))
			pr_objs_have = true;
		goto out_unlock;
	}
	ret = pr_objs_copy(os, &pr_objs_last);
out_unlock:
	pthread_mutex_unlock(&pr_objs_lock);
	return ret;
}

static const struct pr_obj *pr_obj_at(const struct pr_objs *os, uintptr_t addr)
{
	for (size_t i = 0; i < os->n; i++)
		if (addr >= os->o[i].lo && addr < os->o[i].hi)
			return &os->o[i];
	return NULL;
}

/* The object loaded from file @path (resolved: @real), or NULL. */
static const struct pr_obj *pr_obj_file(const struct pr_objs *os, const char *real)
{
	for (size_t i = 0; real && i < os->n; i++)
		if (!strcmp(os->o[i].path, real))
			return &os->o[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Object files, read once                                              */

/* A function of an object's file, in its index sorted by name. */
struct pr_fn {
	const char *name;	/* in the image */
	struct trev_elf_func f;
	uint32_t order;		/* in the file: .symtab's before .dynsym's */
};

/* An object's file read whole, and its functions by name. */
struct pr_img {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;	/* a file changed on disk is read again */
	void *img;
	size_t len;
	struct pr_fn *fns;
	size_t nfns, cap;
	struct pr_img *next;	/* most recently used first */
};

#define PR_IMG_MAX	16	/* files kept */

/* The images (pr_img_lock; an image is used only while it is held). */
static pthread_mutex_t pr_img_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pr_img *pr_imgs;

static int pr_img_add(void *arg, const char *name, const struct trev_elf_func *f)
{
	struct pr_img *im = arg;

	if (im->nfns == im->cap) {
		size_t cap = im->cap ? 2 * im->cap : 256;
		struct pr_fn *n = realloc(im->fns, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		im->fns = n;
		im->cap = cap;
	}
	im->fns[im->nfns] = (struct pr_fn){ name, *f, (uint32_t)im->nfns };
	im->nfns++;
	return 0;
}

static int pr_fn_cmp(const void *a, const void *b)
{
	const struct pr_fn *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static void pr_img_free(struct pr_img *im)
{
	free(im->path);
	free(im->img);
	free(im->fns);
	free(im);
}

/*
 * The image of file @path, read and indexed the first time (and when the
 * file changed). Return: the image, valid while pr_img_lock is held; NULL
 * with errno (ENOENT, ENOEXEC: not an ELF64 image, ENOMEM).
 */
static struct pr_img *pr_img_get(const char *path)
{
	struct pr_img **pp, *im;
	struct stat st;
	size_t n = 0;
	int ret;

	if (stat(path, &st))
		return NULL;
	for (pp = &pr_imgs; (im = *pp); pp = &im->next, n++) {
		if (strcmp(im->path, path) || im->dev != st.st_dev || im->ino != st.st_ino ||
		    im->size != st.st_size || im->mtime.tv_sec != st.st_mtim.tv_sec ||
		    im->mtime.tv_nsec != st.st_mtim.tv_nsec)
			continue;
		*pp = im->next;
		im->next = pr_imgs;
		pr_imgs = im;
		return im;
	}
	im = calloc(1, sizeof(*im));
	if (!im || !(im->path = strdup(path))) {
		free(im);
		errno = ENOMEM;
		return NULL;
	}
	im->dev = st.st_dev;
	im->ino = st.st_ino;
	im->size = st.st_size;
	im->mtime = st.st_mtim;
	ret = trev__elf_read(path, &im->img, &im->len);
	if (!ret)
		ret = trev__elf_funcs(im->img, im->len, pr_img_add, im);
	if (ret) {
		pr_img_free(im);
		errno = -ret;
		return NULL;
	}
	qsort(im->fns, im->nfns, sizeof(*im->fns), pr_fn_cmp);
	im->next = pr_imgs;
	pr_imgs = im;
	/* The least recently used past PR_IMG_MAX go. */
	for (pp = &pr_imgs, n = 0; *pp; n++) {
		if (n < PR_IMG_MAX) {
			pp = &(*pp)->next;
			continue;
		}
		im = *pp;
		*pp = im->next;
		pr_img_free(im);
	}
	return pr_imgs;
}

/* Function @name of @im: .symtab's first. Return: 0 with @f, -ENOENT. */
static int pr_img_func(const struct pr_img *im, const char *name, struct trev_elf_func *f)
{
	size_t lo = 0, hi = im->nfns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(im->fns[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == im->nfns || strcmp(im->fns[lo].name, name))
		return -ENOENT;
	*f = im->fns[lo].f;
	return 0;
}

/* Where a target is. */
struct pr_loc {
	uintptr_t addr;
	uintptr_t func;		/* the function holding it, [func, func + fsize); 0: not known */
	size_t fsize;
	const struct pr_obj *obj;
	bool entry;		/* a patchable entry */
};

/* The function of @l->obj's file image that holds @l->addr. */
static void pr_loc_func(struct pr_loc *l, const struct pr_img *im)
{
	struct trev_elf_func f;

	if (im && !trev__elf_func_at(im->img, im->len, l->addr - l->obj->bias, &f)) {
		l->func = l->obj->bias + f.value;
		l->fsize = f.size;
	}
}

/* SYMBOL[+OFFS] in the objects @os holds that the target names: the program first. */
static int pr_locate_sym(const struct trev_probe_target *t, const struct pr_objs *os,
			 const char *real, struct pr_loc *l)
{
	struct trev_elf_func f;
	struct pr_img *im;
	bool seen = false;

	for (size_t i = 0; i < os->n; i++) {
		const struct pr_obj *o = &os->o[i];

		if ((t->path && strcmp(o->path, real ? real : "")) ||
		    (t->module && (!o->mod || strcmp(o->mod, t->module))))
			continue;
		seen = true;
		im = pr_img_get(o->path);
		if (!im || pr_img_func(im, t->symbol, &f))
			continue;
		if (f.size && t->offset >= f.size)
			return -EINVAL;	/* past the function's end */
		l->obj = o;
		l->func = o->bias + f.value;
		l->fsize = f.size;
		l->addr = l->func + t->offset;
		return 0;
	}
	if (seen || (!t->path && !t->module))
		return -EINVAL;
	/* Not loaded: PATH's function must be in its file; a MODULE's waits as it is. */
	if (t->path) {
		im = pr_img_get(real);
		if (!im || pr_img_func(im, t->symbol, &f) || (f.size && t->offset >= f.size))
			return -EINVAL;
	}
	return -ESRCH;
}

/*
 * pr_locate() - where @def's target is in the objects @os.
 * Return: 0 with @l; -ESRCH (its object is not loaded: it waits); -ENOENT
 * (no such file); -EINVAL (no such function, an offset past it or in no
 * executable segment, an address in no object); -EILSEQ (not an
 * instruction boundary of its function); -EBADR (a return probe not at its
 * function's first byte).
 */
static int pr_locate(const struct trev_probe_def *def, const struct pr_objs *os, struct pr_loc *l)
{
	const struct trev_probe_target *t = &def->target;
	char *real = t->path ? realpath(t->path, NULL) : NULL;
	struct pr_img *im;
	const char *why;
	uint64_t v;
	uintptr_t a;
	int ret = 0;

	memset(l, 0, sizeof(*l));
	pthread_mutex_lock(&pr_img_lock);
	if (t->path && !real) {
		ret = errno == ENOMEM ? -ENOMEM : -ENOENT;
	} else if (t->has_offset && !t->path) {
		/* ADDRESS: in a loaded object. */
		l->obj = pr_obj_at(os, t->offset);
		l->addr = t->offset;
		if (!l->obj)
			ret = -EINVAL;
		else
			pr_loc_func(l, pr_img_get(l->obj->path));
	} else if (t->has_offset) {
		/* PATH:OFFSET: a file offset in an executable segment, the uprobe's. */
		im = pr_img_get(real);
		if (!im)
			ret = errno == ENOMEM ? -ENOMEM : -EINVAL;
		else if (trev__elf_offset_vaddr(im->img, im->len, t->offset, &v))
			ret = -EINVAL;
		else if (!(l->obj = pr_obj_file(os, real)))
			ret = -ESRCH;
		else {
			l->addr = l->obj->bias + v;
			pr_loc_func(l, im);
		}
	} else if (!t->offset &&
		   !trev__ftrace_probe_lookup(t->path ? real : t->module, t->symbol, &a) &&
		   (l->obj = pr_obj_at(os, a))) {
		/* A function with a patchable entry: the function tracer's site. */
		l->addr = a;
		l->entry = true;
	} else {
		ret = pr_locate_sym(t, os, real, l);
	}
	pthread_mutex_unlock(&pr_img_lock);
	free(real);
	if (ret)
		return ret;
	if (!l->entry)
		l->entry = trev__ftrace_probe_valid(l->addr, NULL, 0);
	if (l->entry)
		return 0;
	if (l->fsize && trev__site_boundary(l->addr, l->func, l->fsize, &why))
		return -EILSEQ;
	if (def->is_return && l->fsize && l->addr != l->func)
		return -EBADR;
	/*
	 * A patchable entry in the bytes a relocated site would cover (behind
	 * an endbr64): the function tracer writes there, so the site takes an
	 * int3 (no bounds given), which writes byte 0 only.
	 */
	for (uintptr_t e = l->addr + 1; e < l->addr + 20; e++)
		if (trev__ftrace_probe_valid(e, NULL, 0)) {
			l->func = 0;
			l->fsize = 0;
			break;
		}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sites: on while enabled and loaded                                  */

/* Put @pr on its site. Context: pr_state_lock. */
static int pr_on(struct trev_probe *pr)
{
	const char *why = NULL;
	struct pr_site *ps;
	int ret = 0;

	if (pr->on)
		return 0;
	if (pr->entry) {
		ret = trev__ftrace_probe_site(pr->addr, true, &why);
	} else if (pr->addr == pr_watch_open || pr->addr == pr_watch_close) {
		;	/* the watch's site calls the probes there */
	} else {
		for (ps = pr_sites; ps && ps->addr != pr->addr; ps = ps->next)
			;
		if (!ps) {
			ps = calloc(1, sizeof(*ps));
			if (!ps)
				return -ENOMEM;
			ret = trev__site_attach_in(pr->addr, pr->func, pr->fsize, pr_site_hit, ps,
						   &ps->site, &why);
			if (ret) {
				free(ps);
				ps = NULL;
			} else {
				ps->addr = pr->addr;
				ps->next = pr_sites;
				pr_sites = ps;
			}
		}
		if (ps) {
			ps->users++;
			pr->ps = ps;
			atomic_store_explicit(&ps->solo, ps->users == 1 && !pr->def.is_return ? pr : NULL,
					      memory_order_release);
		}
	}
	if (ret) {
		trev__log(TREV_LOG_WARN, "probe %s/%s: %s", pr->klass.system, pr->call.name,
			  why ? why : strerror(-ret));
		return ret;
	}
	pr->on = true;
	return 0;
}

/* Take @pr off its site; @gone: its object was unloaded (no text to write). Context: pr_state_lock. */
static void pr_off(struct trev_probe *pr, bool gone)
{
	struct pr_site *ps = pr->ps, **pp;
	const char *why = NULL;

	if (!pr->on)
		return;
	pr->on = false;
	if (pr->entry) {
		trev__ftrace_probe_site(pr->addr, false, &why);	/* gone: it is, -ENOENT */
		return;
	}
	pr->ps = NULL;
	if (ps)
		atomic_store_explicit(&ps->solo, NULL, memory_order_release);	/* the walk finds the rest */
	if (!ps || --ps->users)
		return;
	if (gone)
		trev__site_object_gone(ps->addr, ps->addr + 1);
	else if (trev__site_detach(ps->site))
		trev__log(TREV_LOG_ERR, "probe %s/%s: its site at %#lx could not be detached",
			  pr->klass.system, pr->call.name, (unsigned long)ps->addr);
	for (pp = &pr_sites; *pp != ps; pp = &(*pp)->next)
		;
	*pp = ps->next;
	free(ps);
}

/* Count @pr in pr_lib_probes while it is in a library or waits for one. */
static void pr_lib_count(struct trev_probe *pr, bool in_lib)
{
	if (pr->in_lib == in_lib)
		return;
	pr->in_lib = in_lib;
	if (in_lib)
		atomic_fetch_add(&pr_lib_probes, 1);
	else
		atomic_fetch_sub(&pr_lib_probes, 1);
}

/* @pr sits at @l (NULL: waits for its object). Context: pr_state_lock; @pr off. */
static int pr_place(struct trev_probe *pr, const struct pr_loc *l)
{
	char *obj = l ? strdup(l->obj->path) : NULL;

	if (l && !obj)
		return -ENOMEM;
	free(pr->obj);
	pr->obj = obj;
	pr->obj_lo = l ? l->obj->lo : 0;
	pr->entry = l && l->entry;
	pr->func = l ? l->func : 0;
	pr->fsize = l ? l->fsize : 0;
	__atomic_store_n(&pr->addr, l ? l->addr : 0, __ATOMIC_RELAXED);
	pr_lib_count(pr, !l || !l->obj->main);
	return 0;
}

/*
 * The objects changed (dlopen() or dlclose() returned): a probe whose
 * object is gone is off (its sites forgotten, trev__site_object_gone())
 * and waits again; a waiting one whose object is loaded now is placed, and
 * on if it is enabled. Context: no lock of trev's, no RCU read section.
 */
static void pr_rescan(void)
{
	struct pr_objs os;

	if (pr_objs_get(&os))
		return;
	pthread_mutex_lock(&pr_state_lock);
	for (struct trev_probe *pr = pr_states; pr; pr = pr->snext) {
		const struct pr_obj *o = pr->obj ? pr_obj_at(&os, pr->obj_lo) : NULL;
		struct pr_loc l;
		int ret;

		if (pr->obj && (!o || o->lo != pr->obj_lo || strcmp(o->path, pr->obj))) {
			pr_off(pr, true);
			pr_place(pr, NULL);
		}
		if (pr->obj)
			continue;
		ret = pr_locate(&pr->def, &os, &l);
		if (ret == -ESRCH)
			continue;
		if (ret || pr_place(pr, &l)) {
			trev__log(TREV_LOG_WARN, "probe %s/%s: its object is loaded, but the target "
				  "cannot be probed (%s)", pr->klass.system, pr->call.name,
				  strerror(-ret));
			continue;
		}
		if (pr->want)
			pr_on(pr);
	}
	pthread_mutex_unlock(&pr_state_lock);
	pr_objs_free(&os);
}

/*
 * The sites on dlopen() and dlclose() that call pr_rescan() at their
 * returns, tried at each definition until they are there. Context: no
 * lock of the probes' (dlsym() and the attach take the loader's lock,
 * which a constructor writing a definition holds before probe_lock).
 */
static void pr_watch_init(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct trev_site *so, *sc;
	static bool warned;
	const char *why = NULL;
	uintptr_t o, c;
	int ret = 0;

	pthread_mutex_lock(&lock);
	if (so && sc)
		goto out_unlock;
	o = (uintptr_t)dlsym(RTLD_DEFAULT, "dlopen");
	c = (uintptr_t)dlsym(RTLD_DEFAULT, "dlclose");
	if (!o || !c) {
		ret = -ENOENT;
	} else {
		pr_watch_open = o;
		pr_watch_close = c;
		if (!so)
			ret = trev__site_attach(o, pr_watch_hit, NULL, &so, &why);
		if (!ret && !sc)
			ret = trev__site_attach(c, pr_watch_hit, NULL, &sc, &why);
	}
	if (ret && !warned) {
		warned = true;
		trev__log(TREV_LOG_WARN, "probes: dlopen() and dlclose() are not watched (%s): "
			  "a probe's object loaded or unloaded later is not seen",
			  why ? why : strerror(-ret));
	}
out_unlock:
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------------ */
/* Enabling: the site is patched while the tracepoint has a probe       */

/*
 * The first probe registered on @slot's tracepoint (under the tracepoint's
 * lock, not probe_lock: a tracefs write holds that one while it registers
 * the event). probe_slots[@slot] is set before the event is registered and
 * cleared after it is withdrawn, which a registered probe prevents (-EBUSY).
 * A probe whose object is not loaded is enabled at once and on when it is.
 */
static int probe_reg(unsigned int slot)
{
	struct trev_probe *pr = probe_slots[slot];
	int ret = 0;

	if (!pr)
		return -ENOENT;
	pthread_mutex_lock(&pr_state_lock);
	pr->want = true;
	if (pr->obj)
		ret = pr_on(pr);
	if (ret)
		pr->want = false;
	pthread_mutex_unlock(&pr_state_lock);
	return ret;
}

static void probe_unreg(unsigned int slot)
{
	struct trev_probe *pr = probe_slots[slot];

	if (!pr)
		return;
	pthread_mutex_lock(&pr_state_lock);
	pr->want = false;
	pr_off(pr, false);
	pthread_mutex_unlock(&pr_state_lock);
}

#define R1(i)	static int probe_reg_##i(void) { return probe_reg(i); } \
		static void probe_unreg_##i(void) { probe_unreg(i); }
#define R10(p)	R1(p##0) R1(p##1) R1(p##2) R1(p##3) R1(p##4) \
		R1(p##5) R1(p##6) R1(p##7) R1(p##8) R1(p##9)
#define R200	R10() R10(1) R10(2) R10(3) R10(4) R10(5) R10(6) R10(7) R10(8) R10(9) \
		R10(10) R10(11) R10(12) R10(13) R10(14) R10(15) R10(16) R10(17) R10(18) R10(19)
R200
#undef R1
#define R1(i)	{ probe_reg_##i, probe_unreg_##i },
static const struct {
	int (*reg)(void);
	void (*unreg)(void);
} probe_regfns[PROBE_MAX] = { R200 };
#undef R1
#undef R10
#undef R200

/* ------------------------------------------------------------------ */
/* Definitions                                                          */

/*
 * Publish the tables of the probes (probe_lock held): the full call's and
 * the fast call's (probe_fast.c); the old ones go after a grace period.
 */
static int probe_publish(void)
{
	struct trev_probe_fast_site *sites;
	struct probe_tab *t, *old;
	void *old_fast;
	size_t n = 0, ns = 0;
	int err;

	for (struct trev_probe *pr = probes; pr; pr = pr->next)
		n++;
	t = malloc(sizeof(*t) + n * sizeof(t->p[0]));
	sites = malloc((n ? n : 1) * sizeof(*sites));
	if (!t || !sites)
		goto out_nomem;
	t->n = 0;
	for (struct trev_probe *pr = probes; pr; pr = pr->next) {
		uintptr_t addr = __atomic_load_n(&pr->addr, __ATOMIC_RELAXED);

		/* A probe waiting for its object has no site; one that moved, no fast call. */
		if (addr)
			sites[ns++] = (struct trev_probe_fast_site){
				addr, pr->fast && pr->fast->site == addr ? pr->fast : NULL };
		t->p[t->n++] = pr;
	}
	old_fast = trev__probe_fast_publish(sites, ns, &err);
	if (err)
		goto out_nomem;
	free(sites);
	old = atomic_exchange_explicit(&probe_tab, t, memory_order_acq_rel);
	if (old || old_fast) {
		trev__rcu_synchronize();
		if (old)
			trev_tsan_acquire(old);
		if (old_fast)
			trev_tsan_acquire(old_fast);
		free(old);
		free(old_fast);
	}
	return 0;

out_nomem:
	free(sites);
	free(t);
	return -ENOMEM;
}

static struct trev_probe *probe_find(const char *group, const char *event)
{
	for (struct trev_probe *pr = probes; pr; pr = pr->next)
		if ((!group || strcmp(pr->klass.system, group) == 0) &&
		    strcmp(pr->call.name, event) == 0)
			return pr;
	return NULL;
}

static void probe_free(struct trev_probe *pr)
{
	if (!pr)
		return;
	free((char *)pr->call.print_fmt);
	free(pr->fast);
	trev__probe_def_free(&pr->def);
	free(pr->obj);
	free(pr);
}

/*
 * Where the target is (pr_locate() in the objects loaded now), and the
 * default event name (the kernel's) when there is none.
 * Return: as pr_locate() (-ESRCH: it waits for its object), or -ENOMEM.
 */
static int probe_resolve(struct trev_probe_def *def, struct pr_objs *os, struct pr_loc *l)
{
	const struct trev_probe_target *t = &def->target;
	int ret;

	ret = pr_objs_get(os);
	if (ret)
		return ret;
	ret = pr_locate(def, os, l);
	if ((ret && ret != -ESRCH) || def->event)
		return ret;
	{
		const char *base;
		char *p;

		if (t->path && t->has_offset) {
			base = strrchr(t->path, '/');
			base = base ? base + 1 : t->path;
			if (asprintf(&def->event, "%c_%s_0x%lx", def->is_return ? 'r' : 'p', base,
				     t->offset) < 0)
				def->event = NULL;
		} else if (t->has_offset) {
			if (asprintf(&def->event, "%c_0x%lx", def->is_return ? 'r' : 'p',
				     t->offset) < 0)
				def->event = NULL;
		} else if (asprintf(&def->event, "%c_%s_%lu", def->is_return ? 'r' : 'p',
				    t->symbol, t->offset) < 0) {
			def->event = NULL;
		}
		if (!def->event)
			return -ENOMEM;
		/* The kernel's sanitize_event_name(): what is not a C identifier's becomes '_'. */
		for (p = def->event; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_')
				*p = '_';
	}
	return ret;
}

/* Refuse with @code at the start of word @word of the command (past its end: after it). */
static int probe_err_word(struct trev_probe_error *err, unsigned int word, enum trev_probe_err code)
{
	const char *c = err->cmd;

	for (unsigned int w = 0; w < word && *c; w++) {
		c += strcspn(c, " ");
		if (*c)
			c++;
		else
			c++;	/* the kernel's: one past the last word and its blank */
	}
	err->msg = trev__probe_err_text(code);
	err->pos = (int)(c - err->cmd);
	if ((size_t)err->pos > strlen(err->cmd) + 1)
		err->pos = (int)strlen(err->cmd) + 1;
	return -EINVAL;
}

static bool probe_same_target(const struct trev_probe_target *a, const struct trev_probe_target *b)
{
	return !strcmp(a->path ? a->path : "", b->path ? b->path : "") &&
	       !strcmp(a->module ? a->module : "", b->module ? b->module : "") &&
	       !strcmp(a->symbol ? a->symbol : "", b->symbol ? b->symbol : "") &&
	       a->offset == b->offset && a->has_offset == b->has_offset;
}

/*
 * A definition of an event that exists (the kernel's append_trace_kprobe()):
 * another kind of probe (DIFF_PROBE_TYPE), other arguments (DIFF_ARG_TYPE at
 * the first that differs), the same probe again (SAME_PROBE); else a second
 * probe for the event, which trev does not make (FAIL_REG_PROBE: no
 * multi-probe events yet, docs/probes.md).
 */
static int probe_append(const struct trev_probe *old, const struct trev_probe_def *def,
			struct trev_probe_error *err)
{
	const struct trev_probe_def *o = &old->def;
	unsigned int diff = 0;

	if (o->is_return != def->is_return)
		return probe_err_word(err, 0, TREV_PROBE_ERR_DIFF_PROBE_TYPE);
	if (o->nr_args != def->nr_args)
		diff = (o->nr_args < def->nr_args ? o->nr_args : def->nr_args) + 1;
	for (unsigned int i = 0; !diff && i < def->nr_args; i++)
		if (o->args[i].type != def->args[i].type || o->args[i].count != def->args[i].count ||
		    strcmp(o->args[i].name, def->args[i].name))
			diff = i + 1;
	if (diff)
		return probe_err_word(err, diff + 1, TREV_PROBE_ERR_DIFF_ARG_TYPE);
	if (probe_same_target(&o->target, &def->target)) {
		bool same = true;

		for (unsigned int i = 0; same && i < def->nr_args; i++)
			same = !strcmp(o->args[i].comm, def->args[i].comm);
		if (same)
			return probe_err_word(err, 0, TREV_PROBE_ERR_SAME_PROBE);
	}
	return probe_err_word(err, 1, TREV_PROBE_ERR_FAIL_REG_PROBE);
}

static int probe_create_at(struct trev_probe_def *def, bool uprobe, struct trev_probe_error *err,
			   const struct pr_loc *loc);
static void pr_unstate(struct trev_probe *pr);

static int probe_create(struct trev_probe_def *def, bool uprobe, enum trev_probe_file file,
			struct trev_probe_error *err)
{
	const struct trev_probe *old = def->event ? probe_find(def->group, def->event) : NULL;
	struct pr_objs os = { 0 };
	struct pr_loc loc;
	bool waits;
	int ret;

	(void)file;
	/*
	 * Before the target is looked for, as the kernel compares before it
	 * registers; arguments from DWARF are compared once they are made.
	 */
	if (old && !trev__probe_def_dwarf(def))
		return probe_append(old, def, err);
	ret = probe_resolve(def, &os, &loc);
	waits = ret == -ESRCH;
	if (ret == -ENOMEM || (ret && !waits)) {
		pr_objs_free(&os);
		if (ret == -ENOMEM)
			return ret;
		/* The target's word: the kernel's errors for a file or symbol it cannot use. */
		err->msg = trev__probe_err_text(ret == -ENOENT ? TREV_PROBE_ERR_FILE_NOT_FOUND :
						ret == -EILSEQ ? TREV_PROBE_ERR_BAD_INSN_BNDRY :
						ret == -EBADR ? TREV_PROBE_ERR_BAD_RETPROBE :
						TREV_PROBE_ERR_BAD_PROBE_ADDR);
		return -EINVAL;	/* err->pos: the target's column (trev__probe_parse()) */
	}
	ret = probe_create_at(def, uprobe, err, waits ? NULL : &loc);
	pr_objs_free(&os);
	return ret;
}

/* probe_create() for a target found at @loc (NULL: its object is not loaded yet). */
static int probe_create_at(struct trev_probe_def *def, bool uprobe, struct trev_probe_error *err,
			   const struct pr_loc *loc)
{
	const struct trev_probe *old;
	struct trev_probe *pr, **tail;
	unsigned int slot;
	int ret;

	/* DWARF names the arguments where the target is: refused while its object is not loaded. */
	if (loc)
		ret = trev__probe_dwarf_resolve(def, loc->addr, err);
	else if (trev__probe_def_dwarf(def))
		ret = probe_err_word(err, 1, TREV_PROBE_ERR_NOSUP_BTFARG);
	else
		ret = 0;
	if (ret)
		return ret;
	if (!def->args && !(def->args = calloc(1, sizeof(*def->args))))
		return -ENOMEM;
	old = probe_find(def->group, def->event);	/* a name made from the target */
	if (old)
		return probe_append(old, def, err);
	for (slot = 0; slot < PROBE_MAX && probe_slots[slot]; slot++)
		;
	if (slot == PROBE_MAX) {
		err->msg = trev__probe_err_text(TREV_PROBE_ERR_FAIL_REG_PROBE);
		err->pos = 0;
		return -ENOSPC;
	}
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	pr->def = *def;
	memset(def, 0, sizeof(*def));
	pr->uprobe = uprobe;
	pr->slot = slot;
	pr->base = pr->def.is_return ? 24 : 16;
	pr->fixed = pr->base + pr->def.size;
	pr->fast = loc ? trev__probe_compile(&pr->def, loc->addr, pr->fixed, pr->base) : NULL;
	if (pr->fast) {
		pr->fast->where = &pr->addr;
		pr->fast->tp = &pr->tp;
		pr->fast->nhit = &pr->nhit;
		pr->fast->write = (void *)probe_write;
	}
	pr->tp.abi = (struct trev_abi_hdr)TREV_ABI_HDR(struct trev_tracepoint);
	pr->tp.name = pr->def.event;
	pr->tp.regfunc = probe_regfns[slot].reg;
	pr->tp.unregfunc = probe_regfns[slot].unreg;
	pr->klass.abi = (struct trev_abi_hdr)TREV_ABI_HDR(struct trev_event_class);
	pr->klass.system = pr->def.group;
	pr->klass.probe = (void *)probe_write;
	pr->klass.define_fields = probe_define_fields;
	pr->klass.entry_size = pr->fixed;
	pr->call.abi = (struct trev_abi_hdr)TREV_ABI_HDR(struct trev_event_call);
	pr->call.klass = &pr->klass;
	pr->call.name = pr->def.event;
	pr->call.tp = &pr->tp;
	pr->call.output = probe_output;
	pr->call.print_fmt = probe_print_fmt(pr);
	if (!pr->call.print_fmt) {
		probe_free(pr);
		return -ENOMEM;
	}
	probe_slots[slot] = pr;
	ret = trev__events_register_dynamic(&pr->call);
	if (ret) {
		probe_slots[slot] = NULL;
		probe_free(pr);
		return ret;
	}
	for (tail = &probes; *tail; tail = &(*tail)->next)
		;
	*tail = pr;
	/* Placed before it is in the table the hits read (pr_site_fire()). */
	pthread_mutex_lock(&pr_state_lock);
	ret = pr_place(pr, loc);
	if (!ret) {
		pr->snext = pr_states;
		pr_states = pr;
	}
	pthread_mutex_unlock(&pr_state_lock);
	if (!ret)
		ret = probe_publish();
	if (ret) {
		pr_unstate(pr);
		*tail = NULL;
		trev__events_unregister_dynamic(&pr->call);
		probe_slots[slot] = NULL;
		probe_free(pr);
	}
	return ret;
}

/* @pr leaves pr_states (it is off: its event is not registered, or never was). */
static void pr_unstate(struct trev_probe *pr)
{
	pthread_mutex_lock(&pr_state_lock);
	for (struct trev_probe **pp = &pr_states; *pp; pp = &(*pp)->snext)
		if (*pp == pr) {
			*pp = pr->snext;
			break;
		}
	pr_off(pr, false);
	pr_lib_count(pr, false);
	pthread_mutex_unlock(&pr_state_lock);
}

static int probe_destroy(struct trev_probe *pr)
{
	struct trev_probe **pp;
	int ret = trev__events_unregister_dynamic(&pr->call);

	if (ret)
		return ret;
	for (pp = &probes; *pp != pr; pp = &(*pp)->next)
		;
	*pp = pr->next;
	pr_unstate(pr);
	probe_slots[pr->slot] = NULL;
	if (probe_publish()) {
		/* No memory for a smaller table: the old one goes, with every probe in it. */
		struct probe_tab *old = atomic_exchange(&probe_tab, NULL);
		int err;
		void *old_fast = trev__probe_fast_publish(NULL, 0, &err);	/* allocates nothing */

		trev__rcu_synchronize();
		free(old);
		free(old_fast);
		probe_publish();
	}
	probe_free(pr);
	return 0;
}

static bool probe_of_file(const struct trev_probe *pr, enum trev_probe_file file)
{
	return file == TREV_PROBE_DYNAMIC || pr->uprobe == (file == TREV_PROBE_UPROBE);
}

static void probe_init_hook(void)
{
	static bool done;

	if (!done) {
		trev__ftrace_probe_hook_set(probe_hit, probe_exit, trev__probe_fast_hit);
		done = true;
	}
}

/*
 * @SYM[+|-offs] of the arguments made addresses (the kernel's
 * traceprobe_update_arg()): an exported symbol of the process (dlsym()),
 * else a function with a patchable entry. Return: 0, or -ENOENT with @err
 * at the argument.
 */
static int probe_resolve_syms(struct trev_probe_def *def, struct trev_probe_error *err)
{
	for (unsigned int i = 0; i < def->nr_args; i++) {
		struct trev_probe_arg *a = &def->args[i];
		char *sym, *sign;
		uintptr_t addr = 0;
		long off = 0;

		if (a->base != TREV_PB_SYM)
			continue;
		sym = strdup(a->data);
		if (!sym)
			return -ENOMEM;
		sign = strpbrk(sym, "+-");
		if (sign) {
			off = strtol(sign, NULL, 0);
			*sign = '\0';
		}
		addr = (uintptr_t)dlsym(RTLD_DEFAULT, sym);
		if (!addr && trev__ftrace_probe_lookup(NULL, sym, &addr))
			addr = 0;
		free(sym);
		if (!addr) {
			const char *at = strstr(err->cmd, a->comm);

			err->msg = trev__probe_err_text(TREV_PROBE_ERR_BAD_FETCH_ARG);
			err->pos = at ? (int)(at - err->cmd) : 0;
			return -ENOENT;
		}
		a->base = TREV_PB_IMM;
		a->imm = addr + (unsigned long)off;
	}
	return 0;
}

int trev__probe_command(const char *line, enum trev_probe_file file,
			struct trev_probe_error *err, const char **subsystem)
{
	struct trev_probe_def def;
	bool uprobe;
	int ret;

	ret = trev__probe_parse(line, file, &def, err, &uprobe);
	*subsystem = uprobe ? "trace_uprobe" : "trace_kprobe";
	if (ret)
		return ret;
	ret = probe_resolve_syms(&def, err);
	if (ret) {
		trev__probe_def_free(&def);
		return ret == -ENOENT ? -EINVAL : ret;
	}
	pr_watch_init();
	pthread_mutex_lock(&probe_lock);
	probe_init_hook();
	ret = probe_create(&def, uprobe, file, err);
	pthread_mutex_unlock(&probe_lock);
	trev__probe_def_free(&def);
	return ret;
}

int trev__probe_remove(const char *group, const char *event, enum trev_probe_file file)
{
	struct trev_probe *pr, *next;
	int ret = -ENOENT;

	pthread_mutex_lock(&probe_lock);
	if (!*event) {
		/* "-:GRP/": every probe of the group, until one is busy (the kernel's). */
		for (pr = probes; pr && (ret == 0 || ret == -ENOENT); pr = next) {
			next = pr->next;
			if (group && strcmp(pr->klass.system, group) == 0 && probe_of_file(pr, file))
				ret = probe_destroy(pr);
		}
	} else {
		pr = probe_find(group, event);
		if (pr && probe_of_file(pr, file))
			ret = probe_destroy(pr);
	}
	pthread_mutex_unlock(&probe_lock);
	return ret;
}

int trev__probe_release_all(enum trev_probe_file file)
{
	struct trev_probe *pr, *next;
	int ret = 0;

	pthread_mutex_lock(&probe_lock);
	/* All or none (the kernel's dyn_events_release_all()): none may be enabled. */
	for (pr = probes; pr && !ret; pr = pr->next)
		if (probe_of_file(pr, file) && pr->tp.funcs)
			ret = -EBUSY;
	for (pr = probes; pr && !ret; pr = next) {
		next = pr->next;
		if (probe_of_file(pr, file))
			ret = probe_destroy(pr);
	}
	pthread_mutex_unlock(&probe_lock);
	return ret;
}

/* The kernel's trace_kprobe_show() and trace_uprobe_show(). */
int trev__probe_show(struct trev_buf *out, enum trev_probe_file file)
{
	int ret = 0;

	pthread_mutex_lock(&probe_lock);
	for (struct trev_probe *pr = probes; pr && !ret; pr = pr->next) {
		const struct trev_probe_target *t = &pr->def.target;

		if (!probe_of_file(pr, file))
			continue;
		ret = trev__buf_printf(out, "%c:%s/%s", pr->def.is_return ? 'r' : 'p',
				       pr->klass.system, pr->call.name);
		if (ret)
			break;
		if (t->path && t->has_offset)
			ret = trev__buf_printf(out, " %s:0x%016lx", t->path, t->offset);
		else if (t->path)
			ret = trev__buf_printf(out, " %s:%s", t->path, t->symbol);
		else if (t->module)
			ret = trev__buf_printf(out, " %s:%s", t->module, t->symbol);
		else if (t->has_offset)
			ret = trev__buf_printf(out, " 0x%016lx", t->offset);
		else
			ret = trev__buf_printf(out, " %s", t->symbol);
		if (!ret && t->symbol && t->offset)
			ret = trev__buf_printf(out, "+%lu", t->offset);
		for (unsigned int i = 0; !ret && i < pr->def.nr_args; i++)
			ret = trev__buf_printf(out, " %s=%s", pr->def.args[i].name,
					       pr->def.args[i].comm);
		if (!ret)
			ret = trev__buf_putc(out, '\n');
	}
	pthread_mutex_unlock(&probe_lock);
	return ret;
}

/*
 * The kernel's probes_profile_seq_show() (kprobe_profile: name, hits,
 * misses, which a process's probes never have) and probes_profile_seq_show()
 * of trace_uprobe.c (uprobe_profile: file, name, hits).
 */
int trev__probe_profile_show(struct trev_buf *out, enum trev_probe_file file)
{
	int ret = 0;

	pthread_mutex_lock(&probe_lock);
	for (struct trev_probe *pr = probes; pr && !ret; pr = pr->next) {
		unsigned long n = atomic_load_explicit(&pr->nhit, memory_order_relaxed);

		if (!probe_of_file(pr, file))
			continue;
		if (file == TREV_PROBE_UPROBE)
			ret = trev__buf_printf(out, "  %s %-44s %15lu\n",
					       pr->def.target.path ? pr->def.target.path : "-",
					       pr->call.name, n);
		else
			ret = trev__buf_printf(out, "  %-44s %15lu %15lu\n", pr->call.name, n, 0ul);
	}
	pthread_mutex_unlock(&probe_lock);
	return ret;
}
