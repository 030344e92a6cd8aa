/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracepoints: DECLARE_TRACE()/DEFINE_TRACE() give trace_<name>(args) and the
 * register_trace_<name>() family, as <linux/tracepoint.h> does in the kernel.
 * An event header includes this file in place of <linux/tracepoint.h>.
 */
#ifndef TREV_TRACEPOINT_H
#define TREV_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include <trev/abi.h>
#include <trev/common.h>
#include <trev/jump_label.h>
#include <trev/usdt.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The "static key" that guards every tracepoint: one load and an unlikely
 * branch, or, in a file built with -DTREV_JUMP_LABEL=1, a jump label
 * patched by libtrev (trev/jump_label.h, docs/jump-labels.md). Its word
 * has two halves (trev/usdt.h): trev's probes below, the USDT semaphore
 * above; it is > 0 while either is.
 */
struct trev_static_key {
	int enabled;		/* > 0 while the tracepoint has probes or USDT consumers */
};

/* The key's word, loaded once: its sign says whether to go in, its halves who for. */
static inline __trev_notrace int trev_static_key_load(const struct trev_static_key *key)
{
	return __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
}

static inline __trev_notrace bool trev_static_key_false(const struct trev_static_key *key)
{
	return trev_unlikely(trev_static_key_load(key) > 0);
}

/* One registered probe. An array of these, ended by func == NULL, is RCU-protected. */
struct trev_tracepoint_func {
	void *func;		/* void (*)(void *data, proto) */
	void *data;		/* first argument of every call */
	int prio;		/* higher runs first */
};

/*
 * A tracepoint (the kernel's struct tracepoint). Defined by DEFINE_TRACE()
 * in the one file that defines CREATE_TRACE_POINTS.
 */
struct trev_tracepoint {
	struct trev_abi_hdr abi;		/* size and ABI version (trev/abi.h) */
	const char *name;			/* "sched_switch" */
	struct trev_static_key key;		/* set while funcs is not empty */
	struct trev_tracepoint_func *funcs;	/* RCU-protected probe array or NULL */
	int (*regfunc)(void);			/* TRACE_EVENT_FN: first probe added */
	void (*unregfunc)(void);		/* TRACE_EVENT_FN: last probe removed */
	void *iterator;				/* __traceiter_<name>: runs the probes */
};

/* Default priority of register_trace_<name>() (the kernel's TRACEPOINT_DEFAULT_PRIO). */
#define TREV_TRACEPOINT_DEFAULT_PRIO	10

/*
 * trev_tracepoint_probe_register_prio() - add a probe to a tracepoint
 * @tp: the tracepoint
 * @probe: void (*)(void *data, proto)
 * @data: passed as the probe's first argument
 * @prio: probes run in decreasing priority; equal priorities in the order added
 *
 * Context: any thread, not in a signal handler and not inside a probe.
 * Return: 0, -EEXIST if @probe is there already with @data, -ENOMEM, or the
 * regfunc's error.
 */
TREV_API int trev_tracepoint_probe_register_prio(struct trev_tracepoint *tp, void *probe,
						 void *data, int prio);
TREV_API int trev_tracepoint_probe_register(struct trev_tracepoint *tp, void *probe, void *data);

/*
 * trev_tracepoint_probe_unregister() - remove a probe
 *
 * The probe may still be running in other threads when this returns; call
 * tracepoint_synchronize_unregister() before freeing what @data points to.
 * Context: as for registering.
 * Return: 0 or -ENOENT.
 */
TREV_API int trev_tracepoint_probe_unregister(struct trev_tracepoint *tp, void *probe,
					      void *data);

/* Wait until no thread can still be inside a probe removed before the call. */
TREV_API void trev_tracepoint_synchronize_unregister(void);
#define tracepoint_synchronize_unregister()	trev_tracepoint_synchronize_unregister()

/* Number of probes on @tp now (0 when disabled). Context: any. */
TREV_API int trev_tracepoint_probe_count(struct trev_tracepoint *tp);

/* One tracepoint_string() call site. */
struct trev_tp_string {
	const char *str;	/* as written at the call site */
	const char *interned;	/* what the call returns; set once (atomically) */
};

/*
 * trev_tracepoint_string() - tracepoint_string()'s first use at a call
 * site: intern @site->str (a copy that is never freed) and list it in
 * printk_formats.
 * Context: any thread; in a signal handler that interrupted the interning
 * of another string, @site->str is returned as it is, not listed.
 * Return: the interned copy, or @site->str when it could not be made.
 */
TREV_API const char *trev_tracepoint_string(struct trev_tp_string *site);

/*
 * tracepoint_string() - a constant string for an event to record by address
 * (a `const char *` field printed with "%s"), as the kernel's: the string
 * is listed in printk_formats, so that readers of the binary records
 * (trace.dat: trace-cmd report, KernelShark) print it, not its address.
 * The kernel's callers of such events pass these (rcu's TPS(), the IPI
 * names, suspend_resume's actions). After the first call, one load.
 */
#define tracepoint_string(str)							\
	({									\
		static struct trev_tp_string __trev_tps = { str, NULL };	\
		const char *__trev_s =						\
			__atomic_load_n(&__trev_tps.interned, __ATOMIC_ACQUIRE); \
		__builtin_expect(__trev_s != NULL, 1) ? __trev_s :		\
			trev_tracepoint_string(&__trev_tps);			\
	})

#ifdef __cplusplus
}
#endif

/*
 * ThreadSanitizer does not see liburcu's grace periods: a reader's end of
 * section releases, and an updater acquires after synchronize_rcu(), so
 * that freeing an old probe array is ordered after its last reader.
 */
#if defined(__SANITIZE_THREAD__)
#ifdef __cplusplus
extern "C" {
#endif
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#ifdef __cplusplus
}
#endif
#define trev_tsan_release(addr)	__tsan_release((void *)(addr))
#define trev_tsan_acquire(addr)	__tsan_acquire((void *)(addr))
#else
#define trev_tsan_release(addr)	do { } while (0)
#define trev_tsan_acquire(addr)	do { } while (0)
#endif

#define PARAMS(args...)		args

/*
 * The kernel marks some TP_ARGS for perf (sched.h: __perf_task(p),
 * __perf_count(delay)); perf.h makes them hand the value to the perf
 * event. There is no perf here: each is its argument.
 */
#ifndef __perf_task
#define __perf_task(t)		(t)
#endif
#ifndef __perf_count
#define __perf_count(c)		(c)
#endif
#ifndef __perf_addr
#define __perf_addr(a)		(a)
#endif
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TP_CONDITION(args...)	args

#ifdef __cplusplus
#define TREV_EXTERN_C		extern "C"
#else
#define TREV_EXTERN_C		extern
#endif

/*
 * __DECLARE_TRACE() - what every user of a tracepoint sees.
 *
 *	extern struct trev_tracepoint __tracepoint_foo;
 *	void __traceiter_foo(void *__data, int a);	(runs the probes)
 *	static inline void trace_foo(int a)
 *	{
 *		int k = trev_static_key_load(&__tracepoint_foo.key);
 *		if (k > 0 && (cond)) {
 *			(USDT: if k > 0xffff, the SDT probe site; if k&0xffff
 *			 is 0, return)
 *			__traceiter_foo(NULL, a);
 *		}
 *	}
 *	... trace_foo_enabled(), register_trace_foo(), register_trace_prio_foo(),
 *	    unregister_trace_foo(), check_trace_callback_type_foo()
 */
#if defined(TREV_USDT) && defined(TREV_JUMP_LABEL_ON)
/*
 * With jump labels the guard reads no key word: the USDT probe, without a
 * semaphore, fires whenever the enabled block runs, i.e. while trev's
 * probes are on (docs/jump-labels.md).
 */
#define __TREV_USDT_FIRE(name, k, args...)					\
	__trev_usdt_probe(__trev_stringify(TRACE_SYSTEM), name, args);
#define __TREV_USDT_SECTION	__attribute__((section(".probes")))
#define __TREV_USDT_SEM(name)	__trev_usdt_sem(name)
#elif defined(TREV_USDT)
/*
 * Inside the guard, with the key's word @k as the guard loaded it: the USDT
 * probe when its semaphore (the upper half) is set, then trev's probes when
 * the lower half is. Without a USDT consumer this is one compare. The
 * provider is the TRACE_SYSTEM of the header that declares the tracepoint.
 */
#define __TREV_USDT_FIRE(name, k, args...)					\
	if (trev_unlikely((k) > TREV_KEY_PROBES_MASK)) {			\
		__trev_usdt_probe(__trev_stringify(TRACE_SYSTEM), name, args);	\
		if (!((k) & TREV_KEY_PROBES_MASK))				\
			return;							\
	}
/*
 * The tracepoints go in section .probes, where <sys/sdt.h> puts its
 * semaphores: perf (6.1) turns a semaphore's address into a file offset by
 * that section's placement only, and would point uprobes elsewhere in .data.
 */
#define __TREV_USDT_SECTION	__attribute__((section(".probes")))
#define __TREV_USDT_SEM(name)	__trev_usdt_sem(name)
#else
#define __TREV_USDT_SEM(name)
#define __TREV_USDT_FIRE(name, k, args...)
#define __TREV_USDT_SECTION
#endif

#ifdef TREV_JUMP_LABEL_ON
/*
 * With jump labels (trev/jump_label.h), the guard is an asm goto site:
 *
 *	static inline void trace_foo(int a)
 *	{
 *		if (__trev_jl_foo()) {		(nop5; a jmp while foo has probes)
 *			if (!(cond))
 *				return;
 *			(USDT: the SDT probe site, without a semaphore)
 *			__traceiter_foo(NULL, a);
 *		}
 *	}
 */
#define __TREV_TRACE_FN(name, proto, args, cond)					\
	__TREV_JUMP_LABEL(name)								\
	static inline __trev_notrace void trace_##name(proto)				\
	{										\
		if (trev_unlikely(__trev_jl_##name())) {				\
			if (!(cond))							\
				return;							\
			__TREV_USDT_FIRE(name, 0, args)					\
			__traceiter_##name(NULL, args);					\
		}									\
	}
#else
#define __TREV_TRACE_FN(name, proto, args, cond)					\
	static inline __trev_notrace void trace_##name(proto)				\
	{										\
		int __trev_key = trev_static_key_load(&__tracepoint_##name.key);	\
											\
		if (trev_unlikely(__trev_key > 0)) {					\
			if (!(cond))							\
				return;							\
			__TREV_USDT_FIRE(name, __trev_key, args)			\
			__traceiter_##name(NULL, args);					\
		}									\
	}
#endif

#define __DECLARE_TRACE(name, proto, args, cond, data_proto)				\
	TREV_EXTERN_C struct trev_tracepoint __tracepoint_##name;			\
	TREV_EXTERN_C void __traceiter_##name(data_proto);				\
	__TREV_TRACE_FN(name, PARAMS(proto), PARAMS(args), PARAMS(cond))		\
	static inline __trev_notrace bool trace_##name##_enabled(void)			\
	{										\
		return trev_static_key_false(&__tracepoint_##name.key);		\
	}										\
	static inline __trev_notrace int						\
	register_trace_##name(void (*probe)(data_proto), void *data)			\
	{										\
		return trev_tracepoint_probe_register(&__tracepoint_##name,		\
						      (void *)probe, data);		\
	}										\
	static inline __trev_notrace int						\
	register_trace_prio_##name(void (*probe)(data_proto), void *data, int prio)	\
	{										\
		return trev_tracepoint_probe_register_prio(&__tracepoint_##name,	\
							   (void *)probe, data, prio);	\
	}										\
	static inline __trev_notrace int						\
	unregister_trace_##name(void (*probe)(data_proto), void *data)			\
	{										\
		return trev_tracepoint_probe_unregister(&__tracepoint_##name,		\
							(void *)probe, data);		\
	}										\
	static inline __trev_notrace void						\
	check_trace_callback_type_##name(void (*cb)(data_proto))			\
	{										\
		(void)cb;								\
	}

#define TREV_DECLARE_TRACE(name, proto, args)						\
	__DECLARE_TRACE(name, PARAMS(proto), PARAMS(args), 1,				\
			PARAMS(void *__data, proto))

#define TREV_DECLARE_TRACE_CONDITION(name, proto, args, cond)				\
	__DECLARE_TRACE(name, PARAMS(proto), PARAMS(args), PARAMS(cond),		\
			PARAMS(void *__data, proto))

/*
 * DEFINE_TRACE_FN() - the tracepoint itself, in the CREATE_TRACE_POINTS file.
 * Needs <trev/define_trace.h> (which brings the RCU read side), so it is only
 * usable there, as in the kernel.
 */
#define DEFINE_TRACE_FN(_name, _reg, _unreg, proto, args)				\
	__DEFINE_TRACE(_name, _reg, _unreg, PARAMS(proto), PARAMS(args), )

/*
 * DEFINE_TRACE_EVENT_FN() - the tracepoint of a TRACE_EVENT() whose class
 * is @_class (define_trace.h's first pass). When the event's own probe is
 * the only one, the iterator calls it directly, so that the compiler can
 * inline it: no indirect call and one stack frame for the common case.
 */
#define DEFINE_TRACE_EVENT_FN(_name, _class, _reg, _unreg, proto, args)		\
	static void trev_event_raw_event_##_class(void *__data, proto);		\
	__DEFINE_TRACE(_name, _reg, _unreg, PARAMS(proto), PARAMS(args),		\
		if (trev_likely(it_func_ptr->func ==					\
				(void *)trev_event_raw_event_##_class &&		\
				!it_func_ptr[1].func))					\
			trev_event_raw_event_##_class(it_func_ptr->data, args);		\
		else)

/*
 *	struct trev_tracepoint __tracepoint_foo = { TREV_ABI_HDR(...), "foo", ... };
 *	void __traceiter_foo(void *__data, int a)
 *	{
 *		s = trev_rcu_read_lock();	(<trev/rcu.h>)
 *		for (f = rcu_dereference(__tracepoint_foo.funcs); f && f->func; f++)
 *			f->func(f->data, a);		(@direct may go first)
 *		trev_rcu_read_unlock(s);
 *	}
 */
#define __DEFINE_TRACE(_name, _reg, _unreg, proto, args, direct...)			\
	static const char __tpstrtab_##_name[] = #_name;				\
	TREV_EXTERN_C struct trev_tracepoint __tracepoint_##_name;			\
	TREV_EXTERN_C void __traceiter_##_name(void *__data, proto);			\
	struct trev_tracepoint __tracepoint_##_name __TREV_USDT_SECTION = {		\
		TREV_ABI_HDR(struct trev_tracepoint),					\
		__tpstrtab_##_name, { 0 }, NULL, _reg, _unreg,				\
		(void *)__traceiter_##_name						\
	};										\
	__TREV_USDT_SEM(_name)								\
	static struct trev_tracepoint *const __tracepoint_ptr_##_name			\
		__attribute__((used, section("__trev_tracepoints"))) =			\
		&__tracepoint_##_name;							\
	/* Out of line, so that the direct call keeps no arguments across calls. */ \
	static __attribute__((__noinline__)) __trev_notrace void			\
	__traceloop_##_name(struct trev_tracepoint_func *it_func_ptr, proto)		\
	{										\
		do {									\
			((void (*)(void *, proto))(it_func_ptr->func))(it_func_ptr->data, \
									 args);	\
		} while ((++it_func_ptr)->func);					\
	}										\
	__trev_notrace void __traceiter_##_name(void *__data, proto)			\
	{										\
		struct trev_tracepoint_func *it_func_ptr;				\
		struct trev_rcu_section __rcu_s;					\
											\
		(void)__data;								\
		__rcu_s = trev_rcu_read_lock();						\
		/* rcu_dereference(), spelt so that TSan sees the pairing. */		\
		it_func_ptr = __atomic_load_n(&__tracepoint_##_name.funcs,		\
					      __ATOMIC_ACQUIRE);			\
		if (it_func_ptr) {							\
			direct								\
			__traceloop_##_name(it_func_ptr, args);				\
		}									\
		trev_tsan_release(&__tracepoint_##_name);				\
		trev_rcu_read_unlock(__rcu_s);						\
	}

#define DEFINE_TRACE(name, proto, args)							\
	DEFINE_TRACE_FN(name, NULL, NULL, PARAMS(proto), PARAMS(args))

#endif /* TREV_TRACEPOINT_H */

/*
 * Outside the guard, as in the kernel: when an event header is read normally
 * (not by define_trace.h), every event form only declares its tracepoint.
 * define_trace.h undefines all of these when it is done, so the next header
 * read normally gets them again.
 */
#ifndef TRACE_EVENT

#undef DECLARE_TRACE
#define DECLARE_TRACE(name, proto, args)						\
	TREV_DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#undef DECLARE_TRACE_CONDITION
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)				\
	TREV_DECLARE_TRACE_CONDITION(name, PARAMS(proto), PARAMS(args), PARAMS(cond))

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)					\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)			\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)				\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)			\
	DECLARE_TRACE_CONDITION(name, PARAMS(proto), PARAMS(args), PARAMS(cond))
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)				\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)		\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg) \
	DECLARE_TRACE_CONDITION(name, PARAMS(proto), PARAMS(args), PARAMS(cond))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)		\
	DECLARE_TRACE_CONDITION(name, PARAMS(proto), PARAMS(args), PARAMS(cond))
#define TRACE_EVENT_FLAGS(event, flag)
#define TRACE_EVENT_PERF_PERM(event, expr...)
/*
 * Nothing outside CREATE_TRACE_POINTS; there, stage init
 * (trev/stages/init.h) records the names to be replaced by their values in
 * the print fmt of the header's events, as the kernel does.
 */
#define TRACE_DEFINE_ENUM(a)
#define TRACE_DEFINE_SIZEOF(a)

/*
 * The _NOP forms (sched.h without CONFIG_SCHEDSTATS): no tracepoint, no
 * event, only an empty trace_<name>() and a trace_<name>_enabled() that is
 * false, so that callers compile unchanged. Their parameters are unused.
 */
#undef DECLARE_EVENT_NOP
#define DECLARE_EVENT_NOP(name, proto, args)						\
	_Pragma("GCC diagnostic push")							\
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")			\
	static inline __trev_notrace void trace_##name(proto)				\
	{										\
	}										\
	_Pragma("GCC diagnostic pop")							\
	static inline __trev_notrace bool trace_##name##_enabled(void)			\
	{										\
		return false;								\
	}
#undef TRACE_EVENT_NOP
#define TRACE_EVENT_NOP(name, proto, args, tstruct, assign, print)			\
	DECLARE_EVENT_NOP(name, PARAMS(proto), PARAMS(args))
#undef DECLARE_EVENT_CLASS_NOP
#define DECLARE_EVENT_CLASS_NOP(name, proto, args, tstruct, assign, print)
#undef DEFINE_EVENT_NOP
#define DEFINE_EVENT_NOP(template, name, proto, args)					\
	DECLARE_EVENT_NOP(name, PARAMS(proto), PARAMS(args))

#endif /* TRACE_EVENT */
