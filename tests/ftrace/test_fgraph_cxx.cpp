// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * function_graph and C++ exceptions (docs/function-tracer.md, "Frames that
 * do not return"): an exception thrown through traced frames reaches its
 * handler (the unwinder sees the real return addresses: libtrev interposes
 * _Unwind_RaiseException and __cxa_begin_catch), the destructors on the
 * way run, the frames it unwound leave no exit, the frame that caught it
 * returns through the trampoline with its exit recorded, and the calls
 * after it are traced exactly. Also a rethrow, a catch outside any traced
 * frame, a thread, and pthread_cancel of a thread parked in a traced
 * function with a destructor to run.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <trev/trev.h>

#include "fg_check.h"
#include "fg_cxx_funcs.h"

static struct fg_rec recs[4096];

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

static pid_t tid_now()
{
	return (pid_t)syscall(SYS_gettid);
}

static void must(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "FAIL: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
}

/* The records of thread @tid in order, as "E name depth" / "X name depth" words. */
static std::string records_of(pid_t tid)
{
	size_t n = fg_collect(tid, recs, sizeof(recs) / sizeof(recs[0]));
	std::string s;

	for (size_t i = 0; i < n; i++) {
		char w[96];

		CHECK(recs[i].type == FG_TYPE_ENT || recs[i].calltime <= recs[i].rettime);
		snprintf(w, sizeof(w), "%s%c %s %u", s.empty() ? "" : ", ",
			 recs[i].type == FG_TYPE_ENT ? 'E' : 'X', fg_name_of(recs[i].func),
			 recs[i].depth);
		s += w;
	}
	return s;
}

static void expect(const std::string &got, const char *want)
{
	if (got != want) {
		fprintf(stderr, "FAIL: records\n  got:  %s\n  want: %s\n", got.c_str(), want);
		exit(1);
	}
}

static int dtors;

static void *cancel_me(void *)
{
	cx_wait_outer(&dtors);
	return nullptr;
}

int main()
{
	fg_name_add((const void *)cx_leaf, "cx_leaf");
	fg_name_add((const void *)cx_throw, "cx_throw");
	fg_name_add((const void *)cx_middle, "cx_middle");
	fg_name_add((const void *)cx_catch, "cx_catch");
	fg_name_add((const void *)cx_rethrow, "cx_rethrow");
	fg_name_add((const void *)cx_wait, "cx_wait");
	fg_name_add((const void *)cx_wait_outer, "cx_wait_outer");
	must(trev_write("set_ftrace_filter", "cx_*"), "set_ftrace_filter");
	must(trev_write("current_tracer", "function_graph"), "current_tracer");

	/* Caught in a traced frame: its exit is recorded, the unwound frames have none. */
	CHECK(cx_catch(1, &dtors) == -2);
	CHECK(dtors == 1);
	CHECK(cx_leaf(3) == 6);
	CHECK(cx_catch(0, &dtors) == 1);	/* no exception: every frame returns */
	expect(records_of(tid_now()),
	       "E cx_catch 0, E cx_middle 1, E cx_throw 2, E cx_leaf 1, X cx_leaf 1, "
	       "X cx_catch 0, E cx_leaf 0, X cx_leaf 0, "
	       "E cx_catch 0, E cx_middle 1, E cx_throw 2, E cx_leaf 3, X cx_leaf 3, "
	       "X cx_throw 2, X cx_middle 1, X cx_catch 0");
	CHECK(dtors == 2);

	/* Rethrown from a traced frame, caught outside any: everything unwound. */
	must(trev_write("trace", ""), "clear");
	dtors = 0;
	try {
		cx_rethrow(5, &dtors);
		CHECK(!"no exception");
	} catch (const std::runtime_error &e) {
		CHECK(!strcmp(e.what(), "cx_throw"));
	}
	CHECK(dtors == 2);	/* the guard, and the catch (...) that rethrew */
	CHECK(cx_leaf(4) == 8);
	expect(records_of(tid_now()),
	       "E cx_rethrow 0, E cx_middle 1, E cx_throw 2, E cx_leaf 0, X cx_leaf 0");

	/* The same in another thread, many times: its stack stays sane. */
	must(trev_write("trace", ""), "clear");
	pid_t other = 0;
	std::thread th([&other] {
		int d = 0;

		other = tid_now();
		for (int i = 0; i < 100; i++) {
			CHECK(cx_catch(1, &d) == -2);
			try {
				cx_rethrow(1, &d);
			} catch (const std::exception &) {
			}
		}
		CHECK(d == 300);
		CHECK(cx_leaf(1) == 2);
	});
	th.join();
	std::string got = records_of(other);
	/* Each round: cx_catch's exit at depth 0 and nothing left open, then the last call. */
	const char *round = "E cx_catch 0, E cx_middle 1, E cx_throw 2, E cx_leaf 1, X cx_leaf 1, "
			    "X cx_catch 0, E cx_rethrow 0, E cx_middle 1, E cx_throw 2, ";
	std::string want;
	for (int i = 0; i < 100; i++)
		want += round;
	want += "E cx_leaf 0, X cx_leaf 0";
	expect(got, want.c_str());

	/*
	 * pthread_cancel() inside traced frames: glibc's forced unwind reaches
	 * libgcc_s through dlsym(), which no interposition sees. It runs the
	 * cleanups of the frames up to the innermost traced one (cx_wait's
	 * guard) and stops at its replaced return address, where glibc ends
	 * the thread: cx_wait_outer's guard does not run.
	 */
	dtors = 0;
	pthread_t pt;
	void *ret;
	CHECK(pthread_create(&pt, nullptr, cancel_me, nullptr) == 0);
	while (!strstr(records_of(0).c_str(), "E cx_wait"))
		sched_yield();
	CHECK(pthread_cancel(pt) == 0);
	CHECK(pthread_join(pt, &ret) == 0);
	CHECK(ret == PTHREAD_CANCELED);
	CHECK(dtors == 1);

	must(trev_write("current_tracer", "nop"), "current_tracer nop");
	printf("ok\n");
	return 0;
}
