/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Probe events (the kernel's trace_kprobe.c and trace_uprobe.c): each
 * definition an event registered at run time in its group, with a
 * tracepoint of its own whose probe writes the record; the site under it
 * is a patchable entry of the function tracer (trev__ftrace_probe_site()),
 * patched while the event is enabled in some instance. docs/probes.md.
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
#include <unistd.h>

#include <trev/rcu.h>
#include <trev/ring_buffer.h>
#include <trev/trace_event.h>
#include <trev/tracepoint.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/rcu.h"
#include "events/events_internal.h"
#include "ftrace/ftrace.h"
#include "probe/probe.h"
#include "sym/symbols.h"

/* Probe events at most: each has an enable hook of its own (probe_regfns[]). */
#define PROBE_MAX	200

struct trev_probe {
	struct trev_event_call call;	/* registered while the probe exists */
	struct trev_event_class klass;
	struct trev_tracepoint tp;	/* enabling registers probe_write() here */
	struct trev_probe_def def;
	bool uprobe;			/* listed in uprobe_events' form, else kprobe_events' */
	uintptr_t addr;			/* the patchable entry it sits on */
	unsigned int slot;		/* its index in probe_slots[] and probe_regfns[] */
	unsigned int fixed;		/* the record's fixed part */
	unsigned int base;		/* where the arguments start (after the common fields) */
	bool on;			/* its site has it (tp's first probe registered) */
	_Atomic unsigned long nhit;	/* hits while enabled (kprobe_profile, uprobe_profile) */
	struct trev_probe_fast *fast;	/* compiled for the fast call (probe_fast.c); NULL: not */
	struct trev_probe *next;	/* every probe, oldest first */
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
		if (t->p[i]->addr != ip)
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

/*
 * A function with a return probe returned (function_graph's frame pushed
 * for it, trev__fg_entry_probe()): the registers a return has, rax and rdx
 * as the function left them (the return trampoline saved them below @slot),
 * ip the return address, sp above the return slot; the others 0 (they are
 * the caller's again). Context: the return trampoline's full call, inside
 * an RCU read section.
 */
static void probe_exit(unsigned long func, unsigned long ret, unsigned long *slot)
{
	struct probe_tab *t = atomic_load_explicit(&probe_tab, memory_order_acquire);
	struct trev_regs regs = {
		.ax = slot[-2], .dx = slot[-3], .orig_ax = (unsigned long)-1,
		.ip = ret, .sp = (unsigned long)(slot + 1),
	};

	for (size_t i = 0; t && i < t->n; i++)
		if (t->p[i]->addr == func && t->p[i]->def.is_return)
			probe_fire(t->p[i], &regs, func, ret);
	if (t)
		trev_tsan_release(t);
}

/* ------------------------------------------------------------------ */
/* Enabling: the site is patched while the tracepoint has a probe       */

/*
 * The first probe registered on @slot's tracepoint (under the tracepoint's
 * lock, not probe_lock: a tracefs write holds that one while it registers
 * the event). probe_slots[@slot] is set before the event is registered and
 * cleared after it is withdrawn, which a registered probe prevents (-EBUSY).
 */
static int probe_reg(unsigned int slot)
{
	struct trev_probe *pr = probe_slots[slot];
	const char *why = NULL;
	int ret;

	if (!pr)
		return -ENOENT;
	ret = trev__ftrace_probe_site(pr->addr, true, &why);
	if (ret) {
		trev__log(TREV_LOG_WARN, "probe %s/%s: %s", pr->klass.system, pr->call.name,
			  why ? why : strerror(-ret));
		return ret;
	}
	pr->on = true;
	return 0;
}

static void probe_unreg(unsigned int slot)
{
	struct trev_probe *pr = probe_slots[slot];
	const char *why = NULL;

	if (pr && pr->on) {
		trev__ftrace_probe_site(pr->addr, false, &why);
		pr->on = false;
	}
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
	size_t n = 0;
	int err;

	for (struct trev_probe *pr = probes; pr; pr = pr->next)
		n++;
	t = malloc(sizeof(*t) + n * sizeof(t->p[0]));
	sites = malloc((n ? n : 1) * sizeof(*sites));
	if (!t || !sites)
		goto out_nomem;
	t->n = 0;
	for (struct trev_probe *pr = probes; pr; pr = pr->next) {
		sites[t->n] = (struct trev_probe_fast_site){ pr->addr, pr->fast };
		t->p[t->n++] = pr;
	}
	old_fast = trev__probe_fast_publish(sites, n, &err);
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
	free(pr);
}

/*
 * The file offset @off of object @path as a run-time address (its PT_LOAD
 * that holds it). Return: 0, -ENOENT (not loaded), -EINVAL (no segment).
 */
struct probe_where {
	const char *path;
	unsigned long off;
	uintptr_t addr;
	int ret;
};

static int probe_where_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct probe_where *w = arg;
	const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
	char *a = realpath(name, NULL), *b = realpath(w->path, NULL);
	bool same = a && b && strcmp(a, b) == 0;

	(void)size;
	free(a);
	free(b);
	if (!same)
		return 0;
	w->ret = -EINVAL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && w->off >= ph->p_offset &&
		    w->off < ph->p_offset + ph->p_filesz) {
			w->addr = info->dlpi_addr + ph->p_vaddr + (w->off - ph->p_offset);
			w->ret = 0;
			break;
		}
	}
	return 1;
}

/*
 * Where the target is, and the default event name (the kernel's) when there
 * is none. Return: 0 with *@addr; -ENOENT (no such file), -ESRCH (the file
 * is not loaded), -EINVAL (no such function, or no patchable entry there),
 * -EOPNOTSUPP (an offset not 0), -ENOMEM.
 */
static int probe_resolve(struct trev_probe_def *def, uintptr_t *addr)
{
	const struct trev_probe_target *t = &def->target;
	char name[256];
	int ret;

	if (t->path && t->has_offset) {
		struct probe_where w = { t->path, t->offset, 0, -ENOENT };

		if (access(t->path, F_OK))
			return -ENOENT;	/* FILE_NOT_FOUND */
		dl_iterate_phdr(probe_where_cb, &w);
		if (w.ret)
			return w.ret == -ENOENT ? -ESRCH : -EINVAL;
		*addr = w.addr;
	} else if (t->has_offset) {
		*addr = t->offset;
	} else {
		ret = trev__ftrace_probe_lookup(t->path ? t->path : t->module, t->symbol, addr);
		if (ret)
			return -EINVAL;
		if (t->offset)
			return -EOPNOTSUPP;
	}
	if (!trev__ftrace_probe_valid(*addr, name, sizeof(name)))
		return -EINVAL;
	if (!def->event) {
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
	return 0;
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

static int probe_create(struct trev_probe_def *def, bool uprobe, enum trev_probe_file file,
			struct trev_probe_error *err)
{
	const struct trev_probe *old = def->event ? probe_find(def->group, def->event) : NULL;
	struct trev_probe *pr, **tail;
	unsigned int slot;
	uintptr_t addr = 0;
	int ret;

	(void)file;
	/*
	 * Before the target is looked for, as the kernel compares before it
	 * registers; arguments from DWARF are compared once they are made.
	 */
	if (old && !trev__probe_def_dwarf(def))
		return probe_append(old, def, err);
	ret = probe_resolve(def, &addr);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		/* The target's word: the kernel's errors for a file or symbol it cannot use. */
		err->msg = trev__probe_err_text(ret == -ENOENT ? TREV_PROBE_ERR_FILE_NOT_FOUND :
						ret == -EOPNOTSUPP ? TREV_PROBE_ERR_BAD_INSN_BNDRY :
						TREV_PROBE_ERR_BAD_PROBE_ADDR);
		return -EINVAL;	/* err->pos: the target's column (trev__probe_parse()) */
	}
	ret = trev__probe_dwarf_resolve(def, addr, err);
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
	pr->addr = addr;
	pr->slot = slot;
	pr->base = pr->def.is_return ? 24 : 16;
	pr->fixed = pr->base + pr->def.size;
	pr->fast = trev__probe_compile(&pr->def, addr, pr->fixed, pr->base);
	if (pr->fast) {
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
	ret = probe_publish();
	if (ret) {
		*tail = NULL;
		trev__events_unregister_dynamic(&pr->call);
		probe_slots[slot] = NULL;
		probe_free(pr);
	}
	return ret;
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

void *trev__probe_event_find(const char *group, const char *event)
{
	struct trev_probe *pr;

	pthread_mutex_lock(&probe_lock);
	pr = probe_find(group, event);
	pthread_mutex_unlock(&probe_lock);
	return pr;
}

void trev__probe_site_fire(struct trev_regs *regs, void *probe)
{
	struct trev_probe *pr = probe;
	struct trev_rcu_section rcu = trev_rcu_read_lock();

	if (!pr->fast || trev__probe_fast_regs(pr->fast, regs))
		probe_fire(pr, regs, regs->ip, 0);
	trev_rcu_read_unlock(rcu);
}
