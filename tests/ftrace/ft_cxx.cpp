// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A C++ program for tests/scripts/ftrace_cxx.sh, built with the function
 * tracer's flags: a method, a static member, a constructor, a function
 * template, a function in an anonymous namespace, a lambda and an operator,
 * called once each in this order. The script checks that trev names them
 * as docs/function-tracer.md "C++ names" says, in the trace text, in
 * available_filter_functions, in set_ftrace_filter and in trace.dat.
 * With --list it prints available_filter_functions and calls nothing.
 */
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include <trev/trev.h>

namespace ns {
struct Foo {
	Foo();
	int bar(int x) const;
	static int baz(double d);
	bool operator<(const Foo &o) const;
	int v;
};

__attribute__((noinline)) Foo::Foo() : v(1) {}
__attribute__((noinline)) int Foo::bar(int x) const { return x + v; }
__attribute__((noinline)) int Foo::baz(double d) { return (int)d; }
__attribute__((noinline)) bool Foo::operator<(const Foo &o) const { return v < o.v; }

template <typename T> __attribute__((noinline)) T twice(const std::map<T, std::vector<T>> &m, T x)
{
	return (T)m.size() + x * 2;
}
} // namespace ns

namespace {
__attribute__((noinline)) int helper(int a) { return a + 3; }
} // namespace

int main(int argc, char **argv)
{
	std::map<long, std::vector<long>> m;
	int sum;

	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		char buf[1 << 16];
		ssize_t n = trev_read("available_filter_functions", buf, sizeof(buf) - 1);

		if (n < 0)
			return 1;
		fwrite(buf, 1, (size_t)n, stdout);
		return 0;
	}
	ns::Foo f;
	/* Called through a pointer: the lambda's static invoker is a function of its own. */
	int (*volatile add)(int) = [](int a) { return a + 10; };
	sum = f.bar(1);					/* 2 */
	sum += ns::Foo::baz(2.0);			/* 2 */
	sum += (int)ns::twice<long>(m, 3);		/* 6 */
	sum += helper(4);				/* 7 */
	sum += add(5);					/* 15 */
	sum += f < f;					/* 0 */
	if (sum != 32) {
		fprintf(stderr, "ft_cxx: sum %d, not 32\n", sum);
		return 1;
	}
	return 0;
}
