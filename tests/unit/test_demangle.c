// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * C++ names as trev shows them (src/sym/demangle.c): a table of
 * demangled names and the word each becomes, then mangled names through
 * the C++ runtime's demangler, found the way the library finds it.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sym/demangle.h"

static const struct {
	const char *full;	/* as __cxa_demangle() gives it */
	const char *shown;
} simplify_cases[] = {
	{ "ns::Foo::bar(int) const", "ns::Foo::bar" },
	{ "ns::Foo::Foo()", "ns::Foo::Foo" },
	{ "ns::Foo::~Foo()", "ns::Foo::~Foo" },
	{ "long ns::twice<long>(std::map<long, std::vector<long, std::allocator<long> >, "
	  "std::less<long>, std::allocator<std::pair<long const, std::vector<long, "
	  "std::allocator<long> > > > > const&, long)", "ns::twice" },
	{ "std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >::map()",
	  "std::map::map" },
	{ "(anonymous namespace)::helper(int)", "{anonymous}::helper" },
	{ "main::{lambda(int)#1}::_FUN(int)", "main::{lambda#1}::_FUN" },
	{ "foo()::{lambda(int, char)#2}::operator()(int, char) const",
	  "foo::{lambda#2}::operator()" },
	{ "ns::Foo::operator<(ns::Foo const&) const", "ns::Foo::operator<" },
	{ "bool ns::operator< <int>(ns::X<int> const&, ns::X<int> const&)", "ns::operator<" },
	{ "ns::X::operator<<=(int)", "ns::X::operator<<=" },
	{ "ns::X::operator->() const", "ns::X::operator->" },
	{ "ns::X::operator[](unsigned long)", "ns::X::operator[]" },
	{ "ns::X::operator new(unsigned long)", "ns::X::operator_new" },
	{ "ns::X::operator delete[](void*)", "ns::X::operator_delete[]" },
	{ "ns::X::operator unsigned long() const", "ns::X::operator_unsigned_long" },
	{ "ns::X::operator std::vector<int, std::allocator<int> >() const",
	  "ns::X::operator_std::vector" },
	{ "ns::my_operator(int)", "ns::my_operator" },
	{ "ns::operators()", "ns::operators" },
	{ "foo(int) [clone .constprop.0] [clone .cold]", "foo.constprop.0.cold" },
	{ "ns::S::f() &&", "ns::S::f" },
	{ "void ns::g<void (*)(int)>(void (*)(int))", "ns::g" },
	{ "ns::{unnamed type#1}::f()", "ns::{unnamed_type#1}::f" },
	{ "unsigned long long ns::h<3>()", "ns::h" },
	{ "plain", "plain" },
	{ "", "" },
	{ "a(((", "a" },		/* unbalanced: what is left of the name */
	{ "const", "" },
};

static void test_simplify_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(simplify_cases) / sizeof(simplify_cases[0]); i++) {
		const char *full = simplify_cases[i].full;
		char *out = malloc(strlen(full) + 1);	/* the size the function asks for */
		size_t n;

		assert_non_null(out);
		n = trev__demangle_simplify(full, out);
		if (strcmp(out, simplify_cases[i].shown) != 0)
			fail_msg("\"%s\": \"%s\", want \"%s\"", full, out, simplify_cases[i].shown);
		assert_int_equal(n, strlen(out));
		free(out);
	}
}

static void test_mangled(void **state)
{
	static const struct {
		const char *mangled;
		const char *shown;	/* NULL: left as it is */
	} cases[] = {
		{ "_ZNK2ns3Foo3barEi", "ns::Foo::bar" },
		{ "_ZN2ns5twiceIlEET_RKSt3mapIS1_St6vectorIS1_SaIS1_EESt4lessIS1_ESaISt4pairIKS1_S5_EEES1_",
		  "ns::twice" },
		{ "_ZN12_GLOBAL__N_16helperEi", "{anonymous}::helper" },
		{ "_ZZ4mainENUliE_4_FUNEi", "main::{lambda#1}::_FUN" },
		{ "_ZThn8_N2ns3Foo3barEv", "ns::Foo::bar" },	/* a thunk: its target */
		{ "_ZTVN2ns3FooE", NULL },			/* vtable: data */
		{ "_ZTIN2ns3FooE", NULL },			/* typeinfo */
		{ "_ZGVZ4mainE1x", NULL },			/* guard variable */
		{ "main", NULL },
		{ "_Znot_a_name", NULL },
	};
	/* A C program: the runtime is found only once something loaded it. */
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	(void)state;
	if (!h)
		skip();
	trev__demangle_resolve();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *shown = trev__demangle(cases[i].mangled);

		if (!cases[i].shown) {
			if (shown)
				fail_msg("%s: \"%s\", want it left as it is", cases[i].mangled, shown);
			continue;
		}
		if (!shown || strcmp(shown, cases[i].shown) != 0)
			fail_msg("%s: \"%s\", want \"%s\"", cases[i].mangled, shown ? shown : "(null)",
				 cases[i].shown);
		free(shown);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simplify_table),
		cmocka_unit_test(test_mangled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
