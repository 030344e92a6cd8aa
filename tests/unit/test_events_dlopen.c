/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events of a shared object loaded with dlopen(): they appear with the
 * object, disappear with it (old records print as "Unknown type N", nothing
 * dangles), come back with new ids, survive enable/disable races, and
 * TREV_EVENTS enables them when the object is loaded after start-up.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <trev/trev.h>

#ifndef TREV_DL_MODULE
#error "TREV_DL_MODULE must name the path of the test module (tests/CMakeLists.txt)"
#endif

#define RACE_NS		300000000ll	/* how long the enable/disable race runs */
#define ENV_CHILD_ARG	"--env-child"	/* argv[1] of the TREV_EVENTS child */

typedef void (*fire_fn)(int n, const char *s);

/* The module while it is loaded. */
static void *module;
static fire_fn module_fire;

/* Ids the events had in the first load, for the unknown-record checks. */
static unsigned int old_hello_id, old_value_id;

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static void module_open(void)
{
	module = dlopen(TREV_DL_MODULE, RTLD_NOW | RTLD_LOCAL);
	if (!module)
		print_error("dlopen: %s\n", dlerror());
	assert_non_null(module);
	module_fire = (fire_fn)dlsym(module, "dl_module_fire");
	assert_non_null(module_fire);
}

/* Unload, and make sure the object really left the address space. */
static void module_close(void)
{
	assert_int_equal(dlclose(module), 0);
	module = NULL;
	module_fire = NULL;
	assert_null(dlopen(TREV_DL_MODULE, RTLD_NOW | RTLD_NOLOAD));
}

/* The `trace` text, malloc'd. */
static char *trace_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(trev_trace_print(f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * Split one event line "COMM-PID [CPU] FLAGS SECS.USECS: REST" (docs/formats.md, "The trace text").
 * Return: REST, or NULL if the line does not have that shape.
 */
static const char *line_rest(const char *line, int *pid)
{
	const char *b = strstr(line, " ["), *p, *q;

	if (!b || b == line)
		return NULL;
	for (p = b; p > line && p[-1] == ' '; p--)
		;
	for (q = p; q > line && q[-1] >= '0' && q[-1] <= '9'; q--)
		;
	if (q == p || q == line || q[-1] != '-')
		return NULL;
	*pid = atoi(q);
	p = strchr(b, ']');
	if (!p || p[1] != ' ')
		return NULL;
	/* The irq-info flags ("...."), when the option is on. */
	p += 2;
	if (*p != ' ' && (*p < '0' || *p > '9'))
		p += strcspn(p, " ");
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != '.')
		return NULL;
	for (q = p; *p >= '0' && *p <= '9'; p++)
		;
	if (p - q != 6 || p[0] != ':' || p[1] != ' ')
		return NULL;
	return p + 2;
}

/*
 * Count the event lines of @text whose REST (see line_rest()) is @rest, or
 * starts with it when @prefix is true; every line counted must come from @pid.
 */
static int count_lines(const char *text, const char *rest, bool prefix, int pid)
{
	size_t rlen = strlen(rest);
	int n = 0;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[1024];
		const char *r;
		int lpid;

		assert_true(len < sizeof(line));
		memcpy(line, l, len);
		line[len] = '\0';
		l += len + (nl != NULL);
		/* The header, and the marks of events lost to a full buffer. */
		if (line[0] == '#' || (strncmp(line, "CPU:", 4) == 0 && strstr(line, " [LOST ")))
			continue;
		r = line_rest(line, &lpid);
		if (!r) {
			print_error("not an event line: '%s'\n", line);
			fail();
		}
		if (prefix ? strncmp(r, rest, rlen) != 0 : strcmp(r, rest) != 0)
			continue;
		if (pid)
			assert_int_equal(lpid, pid);
		n++;
	}
	return n;
}

/* The ID: line of an event's format text; 0 if the event does not exist. */
static unsigned int event_id(const char *event)
{
	char *text = NULL;
	unsigned int id = 0;
	const char *p;
	int ret;

	ret = trev_event_format("dl_test", event, &text);
	if (ret == -ENOENT)
		return 0;
	assert_int_equal(ret, 0);
	p = strstr(text, "\nID: ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "\nID: %u\n", &id), 1);
	assert_true(id > 0);
	free(text);
	return id;
}

static const char *unknown_line(unsigned int id)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "Unknown type %u", id);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Tests, run in this order in one process                              */

static void test_load_registers_events(void **state)
{
	int me = (int)gettid();
	char *text = NULL, *trace;

	(void)state;
	assert_int_equal(trev_event_format("dl_test", "dl_hello", &text), -ENOENT);
	assert_int_equal(trev_event_format("dl_test", "dl_value", &text), -ENOENT);
	assert_null(text);
	assert_int_equal(trev_set_event("dl_test:*"), -EINVAL);

	module_open();
	assert_int_equal(trev_event_format("dl_test", "dl_hello", &text), 0);
	assert_non_null(text);
	assert_true(strncmp(text, "name: dl_hello\nID: ", 19) == 0);
	assert_non_null(strstr(text, "\tfield:__data_loc char[] s;\t"));
	assert_non_null(strstr(text, "\nprint fmt: \"n=%d s=%s\", REC->n, __get_str(s)\n"));
	free(text);
	/* The module's TRACE_DEFINE_ENUMs apply to its events when it registers. */
	assert_int_equal(trev_event_format("dl_test", "dl_mode", &text), 0);
	assert_non_null(strstr(text, "\nprint fmt: \"mode=%s\", __print_symbolic(REC->mode, "
				     "{ 1, \"lazy\" }, { 2, \"now\" })\n"));
	free(text);
	old_hello_id = event_id("dl_hello");
	old_value_id = event_id("dl_value");
	assert_int_not_equal(old_hello_id, old_value_id);

	/* Loaded events start disabled: firing records nothing yet. */
	module_fire(100, "off");
	assert_int_equal(trev_set_event("dl_test:*"), 0);
	module_fire(1, "one");
	module_fire(2, "two");

	trace = trace_text();
	assert_int_equal(count_lines(trace, "dl_hello: n=100", true, 0), 0);
	assert_int_equal(count_lines(trace, "dl_hello: n=1 s=one", false, me), 1);
	assert_int_equal(count_lines(trace, "dl_hello: n=2 s=two", false, me), 1);
	assert_int_equal(count_lines(trace, "dl_value: v=0x10001", false, me), 1);
	assert_int_equal(count_lines(trace, "dl_value: v=0x20002", false, me), 1);
	free(trace);
}

static void test_unload_forgets_events(void **state)
{
	char *text = NULL, *trace;
	int me = (int)gettid();

	(void)state;
	module_close();
	assert_int_equal(trev_event_format("dl_test", "dl_hello", &text), -ENOENT);
	assert_int_equal(trev_event_format("dl_test", "dl_value", &text), -ENOENT);
	assert_null(text);
	assert_int_equal(trev_set_event("dl_test:*"), -EINVAL);
	assert_int_equal(trev_set_event("dl_test:dl_hello"), -EINVAL);
	assert_int_equal(trev_set_event("!dl_test:dl_value"), -EINVAL);

	/*
	 * The records outlive the object: printed as the kernel prints a
	 * record whose event is gone, touching none of the object's memory.
	 */
	trace = trace_text();
	assert_int_equal(count_lines(trace, unknown_line(old_hello_id), false, me), 2);
	assert_int_equal(count_lines(trace, unknown_line(old_value_id), false, me), 2);
	assert_int_equal(count_lines(trace, "dl_hello:", true, 0), 0);
	assert_int_equal(count_lines(trace, "dl_value:", true, 0), 0);
	free(trace);
}

static void test_reload_gets_new_ids(void **state)
{
	unsigned int hello_id, value_id;
	int me = (int)gettid();
	char *trace;

	(void)state;
	module_open();
	hello_id = event_id("dl_hello");
	value_id = event_id("dl_value");
	assert_true(hello_id > 0 && value_id > 0);
	/* Ids are never reused: old records cannot pass for the new events. */
	assert_int_not_equal(hello_id, old_hello_id);
	assert_int_not_equal(hello_id, old_value_id);
	assert_int_not_equal(value_id, old_hello_id);
	assert_int_not_equal(value_id, old_value_id);
	assert_int_not_equal(hello_id, value_id);

	/* Disabled again after the reload, whatever the first load had. */
	module_fire(200, "off");
	assert_int_equal(trev_set_event("dl_test:dl_hello"), 0);
	module_fire(3, "three");

	trace = trace_text();
	assert_int_equal(count_lines(trace, "dl_hello: n=200", true, 0), 0);
	assert_int_equal(count_lines(trace, "dl_hello: n=3 s=three", false, me), 1);
	assert_int_equal(count_lines(trace, "dl_hello:", true, me), 1);
	assert_int_equal(count_lines(trace, "dl_value:", true, 0), 0);
	assert_int_equal(count_lines(trace, unknown_line(old_hello_id), false, me), 2);
	assert_int_equal(count_lines(trace, unknown_line(old_value_id), false, me), 2);
	assert_int_equal(count_lines(trace, unknown_line(hello_id), false, 0), 0);
	free(trace);
	assert_int_equal(trev_set_event("!dl_test:*"), 0);
}

/* The enable/disable race: a thread fires while the main thread toggles. */
static atomic_bool race_stop;
static atomic_long race_fired;
static atomic_long race_done;	/* fires returned so far */
static atomic_int race_tid;

static void *race_fire_main(void *arg)
{
	fire_fn fire = (fire_fn)arg;
	long n = 0;

	atomic_store(&race_tid, (int)gettid());
	while (!atomic_load_explicit(&race_stop, memory_order_relaxed)) {
		fire((int)(n & 0xffff), "race");
		n++;
		atomic_store_explicit(&race_done, n, memory_order_release);
	}
	atomic_store(&race_fired, n);
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void test_toggle_while_firing(void **state)
{
	long long end;
	long toggles = 0;
	pthread_t thread;
	char *trace;
	int hello;

	(void)state;
	assert_int_equal(trev_trace_reset(), 0);
	atomic_store(&race_stop, false);
	atomic_store(&race_done, 0);
	assert_int_equal(pthread_create(&thread, NULL, race_fire_main, (void *)module_fire), 0);
	end = now_ns() + RACE_NS;
	while (now_ns() < end) {
		assert_int_equal(trev_set_event("dl_test:*"), 0);
		sched_yield();
		assert_int_equal(trev_set_event("!dl_test:*"), 0);
		toggles++;
	}
	/*
	 * Leave it enabled until a fire began after the enable returned, so
	 * that a record is certain: fire number done0 + 1 starts only after
	 * done0 + 1 was stored, which is after this read; it has returned once
	 * done0 + 2 is stored.
	 */
	assert_int_equal(trev_set_event("dl_test:dl_hello"), 0);
	{
		long done0 = atomic_load_explicit(&race_done, memory_order_acquire);

		while (atomic_load_explicit(&race_done, memory_order_acquire) < done0 + 2)
			sched_yield();
	}
	atomic_store(&race_stop, true);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(trev_set_event("!dl_test:*"), 0);
	print_message("  %ld toggles, %ld fires\n", toggles, atomic_load(&race_fired));
	assert_true(atomic_load(&race_fired) > 0);

	trace = trace_text();
	hello = count_lines(trace, "dl_hello: n=", true, atomic_load(&race_tid));
	assert_true(hello > 0);
	assert_true(hello <= atomic_load(&race_fired));
	free(trace);

	/* The thread is gone; unload under records of both events. */
	module_close();
	trace = trace_text();
	assert_int_equal(count_lines(trace, "dl_hello:", true, 0), 0);
	assert_int_equal(count_lines(trace, "dl_value:", true, 0), 0);
	free(trace);
}

/*
 * TREV_EVENTS names events of an object loaded after start-up: run this
 * binary again as a child with TREV_EVENTS=dl_test:dl_hello; it loads the
 * module, fires, and prints the trace to the pipe read here.
 */
static void test_env_enables_later_load(void **state)
{
	char *argv[] = { "/proc/self/exe", ENV_CHILD_ARG, NULL };
	char **envp, *out = NULL, buf[4096];
	size_t nenv = 0, k = 0, len = 0;
	int fds[2], status, n;
	pid_t pid;
	FILE *f;

	(void)state;
	while (environ[nenv])
		nenv++;
	envp = calloc(nenv + 2, sizeof(*envp));
	assert_non_null(envp);
	for (size_t i = 0; i < nenv; i++)
		if (strncmp(environ[i], "TREV_", 5) != 0)
			envp[k++] = environ[i];
	envp[k] = "TREV_EVENTS=dl_test:dl_hello";

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(fds[1]);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	while ((n = (int)read(fds[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, f);
	assert_int_equal(fclose(f), 0);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	free(envp);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		print_error("child: status 0x%x, output:\n%s\n", status, out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* Only the named event, with no trev_set_event() call in the child. */
	assert_int_equal(count_lines(out, "dl_hello: n=7 s=env", false, pid), 1);
	assert_int_equal(count_lines(out, "dl_hello:", true, 0), 1);
	assert_int_equal(count_lines(out, "dl_value:", true, 0), 0);
	free(out);
}

/* The child of test_env_enables_later_load(): load, fire, print, exit. */
static int env_child(void)
{
	module = dlopen(TREV_DL_MODULE, RTLD_NOW | RTLD_LOCAL);
	if (!module) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	module_fire = (fire_fn)dlsym(module, "dl_module_fire");
	if (!module_fire)
		return 1;
	module_fire(7, "env");
	if (trev_trace_print(stdout) != 0)
		return 1;
	fflush(stdout);
	return dlclose(module) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_registers_events),
		cmocka_unit_test(test_unload_forgets_events),
		cmocka_unit_test(test_reload_gets_new_ids),
		cmocka_unit_test(test_toggle_while_firing),
		cmocka_unit_test(test_env_enables_later_load),
	};

	if (argc > 1 && strcmp(argv[1], ENV_CHILD_ARG) == 0)
		return env_child();
	/* This process must see no start-up enables of its own. */
	if (getenv("TREV_EVENTS") || getenv("TREV_OUTPUT")) {
		fprintf(stderr, "run without TREV_EVENTS/TREV_OUTPUT set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
