/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event macros in a C++ translation unit: every public header and the
 * test event header (every field kind and helper) compile as C++, and the
 * events record and print as they do from C.
 */
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csetjmp>

extern "C" {
#include <cmocka.h>
}

#include <trev/ring_buffer.h>
#include <trev/trace_event.h>
#include <trev/trace_seq.h>
#include <trev/trev.h>

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"
/* TRACE_DEFINE_ENUM/SIZEOF and the %p extensions, compiled as C++. */
#include "kprint_events.h"

int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static void fire_vstr(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fire_vstr(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_tt_vstr(level, fmt, &ap);
	va_end(ap);
}

static void test_cxx_events(void **state)
{
	unsigned short v[2] = { 7, 8 };
	unsigned char bytes[2] = { 0xca, 0xfe };
	unsigned long mask[1] = { 0x3 };
	char *buf = nullptr;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(trev_set_event("trev_test:*"), 0);
	trace_tt_strings("cxx", "hello", 5, "tag");
	trace_tt_arrays(v, 2, bytes, 2);
	trace_tt_flags(0x3, 2, 0x1, mask, 8);
	trace_tt_close(9, "cxx");
	trace_printk("from C++ %d %s\n", 42, "ok");
	{
		/* The kernel 6.1 macros, every one, from C++. */
		static const unsigned long cpus[1024 / (8 * sizeof(long))] = { 0x1 };
		static const unsigned long bits[1] = { 0x6 };
		static const unsigned int uv[2] = { 5, 6 };
		static const int iv[2] = { -1, 2 };

		trace_tt_nop(1);
		trace_tt_nop_ev(1, "nop");
		assert_false(trace_tt_nop_enabled());
		trace_tt_perf(nullptr, 3, 0x10);
		trace_tt_perf_count(4, 0);
		trace_tt_cpumask(5, cpus);
		fire_vstr(6, "cxx %s", "vstr");
		trace_tt_rel("cxx", "relative", 3, iv, 2, bits, 3, cpus);
		trace_tt_dynprint(uv, 2);
	}
	assert_string_equal(tracepoint_string("from C++"), "from C++");
	/* Negative values in __print_symbolic/__print_flags pairs, converted as in C. */
	assert_int_equal(trev_set_event("kprint:kp_neg"), 0);
	trace_kp_neg(-1, ~0ul - 2, -2);
	trace_kp_neg(KP_NEGATIVE, 1, 1);
	trace_kp_neg(0, ~0ul - 3, 3);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	fclose(f);
	assert_non_null(strstr(buf, ": tt_strings: name=cxx msg=hello tag=tag\n"));
	assert_non_null(strstr(buf, ": tt_arrays: fixed={0x2,0x2,0xffffffff} v={0x7,0x8} n=2 "
				    "hex=ca fe hexstr=cafe\n"));
	assert_non_null(strstr(buf, ": tt_flags: flags=READ|WRITE state=BLOCKED big=LOW "
				    "mask=00000000,00000003\n"));
	assert_non_null(strstr(buf, ": tt_close: closed cxx (9)\n"));
	assert_non_null(strstr(buf, "from C++ 42 ok\n"));
	assert_non_null(strstr(buf, ": tt_perf: task=(nil) delay=3 addr=0x10\n"));
	assert_non_null(strstr(buf, ": tt_perf_count: runtime=4 cpu=0\n"));
	assert_non_null(strstr(buf, ": tt_cpumask: id=5 cpus="));
	assert_non_null(strstr(buf, ": tt_vstr: level=6 msg=cxx vstr\n"));
	assert_non_null(strstr(buf, ": tt_rel: name=cxx tag=rel n=2 vals={0xffffffff,0x2} "
				    "bits=00000000,00000006 cpus="));
	assert_non_null(strstr(buf, ": tt_dynprint: vals={0x5,0x6}\n"));
	assert_null(strstr(buf, "tt_nop"));
	assert_non_null(strstr(buf, ": kp_neg: act=NEG flags=ONE|HIGH big=NEG2\n"));
	assert_non_null(strstr(buf, ": kp_neg: act=KPNEG flags=ONE big=ONE\n"));
	assert_non_null(strstr(buf, ": kp_neg: act=ZERO flags=HIGH big=0x3\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
