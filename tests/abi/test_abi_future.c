/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Descriptors of an ABI newer than the library's are refused cleanly: the
 * object tests/abi/abi_future_mod.c (one event of today's ABI beside an
 * event, a tracepoint, an eval map, a trace_printk site and a module record
 * of ABI 99) loads, its well-formed event works, every ABI 99 descriptor is
 * refused with a log message that names its ABI, none is written to, and
 * nothing crashes; the object unloads.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <trev/trace_event.h>
#include <trev/trev.h>

#ifndef TREV_ABI_FUTURE_MOD
#error "TREV_ABI_FUTURE_MOD must name the path of the test module (tests/CMakeLists.txt)"
#endif

struct future_desc {
	struct trev_abi_hdr abi;
	unsigned char rest[120];
};

static char logbuf[16384];
static size_t loglen;

static void log_fn(int level, const char *msg, void *arg)
{
	(void)level, (void)arg;
	loglen += (size_t)snprintf(logbuf + loglen, sizeof(logbuf) - loglen, "%s", msg);
	if (loglen >= sizeof(logbuf))
		loglen = sizeof(logbuf) - 1;
}

static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Each ABI 99 descriptor is as the object made it: header and filler. */
static void assert_untouched(void *mod, const char *sym, unsigned char fill)
{
	const struct future_desc *d = dlsym(mod, sym);

	assert_non_null(d);
	assert_int_equal(d->abi.abi, 99);
	assert_int_equal(d->abi.size, sizeof(*d));
	assert_int_equal(d->abi.magic, TREV_ABI_MAGIC);
	for (size_t i = 0; i < sizeof(d->rest); i++)
		assert_int_equal(d->rest[i], fill);
}

static void test_future_refused(void **state)
{
	char avail[65536], *buf = NULL;
	size_t len = 0;
	void *mod;
	int (*fire)(int);
	void (*reg)(void);
	struct trev_tracepoint *tp;
	ssize_t n;
	FILE *f;

	(void)state;
	trev_set_log(log_fn, NULL, TREV_LOG_WARN);
	mod = dlopen(TREV_ABI_FUTURE_MOD, RTLD_NOW | RTLD_LOCAL);
	if (!mod)
		print_error("dlopen: %s\n", dlerror());
	assert_non_null(mod);
	fire = (int (*)(int))dlsym(mod, "fut_fire");
	reg = (void (*)(void))dlsym(mod, "fut_register_module");
	tp = dlsym(mod, "future_tp");
	assert_non_null(fire);
	assert_non_null(reg);
	assert_non_null(tp);

	/* Registration: the event, tracepoint and eval map refused, each said once. */
	assert_int_equal(count(logbuf, "event descriptor at"), 1);
	assert_int_equal(count(logbuf, "TRACE_DEFINE_ENUM descriptor at"), 1);
	assert_int_equal(count(logbuf, "tracepoint descriptor at"), 1);
	assert_int_equal(count(logbuf, "is of ABI 99; this libtrev"), 2);
	n = trev_read("available_events", avail, sizeof(avail) - 1);
	assert_true(n > 0);
	avail[n] = '\0';
	assert_non_null(strstr(avail, "abi_future:fut_ok\n"));
	assert_int_equal(count(avail, "abi_future:"), 1);

	/* A module record of ABI 99: refused whole. */
	reg();
	assert_int_equal(count(logbuf, "module record at"), 1);

	/* Its tracepoint cannot take a probe; its printk site records nothing. */
	assert_int_equal(trev_tracepoint_probe_register(tp, (void *)log_fn, NULL), -EPROTO);
	assert_int_equal(trev_tracepoint_probe_unregister(tp, (void *)log_fn, NULL), -ENOENT);
	assert_int_equal(trev_tracepoint_probe_count(tp), 0);
	assert_int_equal(trev_trace_reset(), 0);
	assert_int_equal(trev_set_event("abi_future:*"), 0);
	assert_int_equal(fire(5), 0);
	assert_int_equal(fire(6), 0);
	assert_int_equal(count(logbuf, "trace_printk: a call site of ABI 99"), 1);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(count(buf, "fut_ok: n=5\n"), 1);
	assert_int_equal(count(buf, "fut_ok: n=6\n"), 1);
	assert_null(strstr(buf, "bprint"));
	assert_int_equal(count(buf, ": n="), 2);
	free(buf);

	print_message("%s", logbuf);
	assert_untouched(mod, "future_event", 0xa5);
	assert_untouched(mod, "future_tp", 0x5a);
	assert_untouched(mod, "future_eval", 0x3c);
	assert_untouched(mod, "future_site", 0xc3);
	assert_untouched(mod, "future_module", 0x11);
	assert_int_equal(trev_set_event("!abi_future:*"), 0);
	assert_int_equal(dlclose(mod), 0);
	n = trev_read("available_events", avail, sizeof(avail) - 1);
	assert_true(n >= 0);
	avail[n] = '\0';
	assert_null(strstr(avail, "abi_future:"));
	trev_set_log(NULL, NULL, TREV_LOG_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_future_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
