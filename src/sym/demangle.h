/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * C++ names as trev shows them (docs/function-tracer.md, "C++ names"):
 * demangled by the C++ runtime's __cxa_demangle(), found in the process,
 * then reduced to scopes and identifiers, as uftrace shows them by
 * default: `ns::Foo::bar`, no template arguments, no parameters and no
 * white space, so that a name is one word in available_filter_functions,
 * set_ftrace_filter and a trace.dat file's kallsyms.
 */
#ifndef TREV_DEMANGLE_H
#define TREV_DEMANGLE_H

#include <stddef.h>

/* __cxa_demangle()'s type (the Itanium C++ ABI). */
typedef char *(*trev_cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/*
 * trev__demangle_resolve() - look for a C++ runtime already in the process
 * (libstdc++ or libc++abi) and use its demangler from now on; none: names
 * stay as they are. Takes the dynamic loader's lock (dlopen RTLD_NOLOAD):
 * call it where that is allowed, before taking any lock of trev's (at
 * start-up, and at the start of an object's registration, which runs
 * under the loader's lock already).
 */
void trev__demangle_resolve(void);

/* Use @fn as the demangler (the trev command, which loads libstdc++ itself). */
void trev__demangle_set(trev_cxa_demangle_fn fn);

/*
 * trev__demangle() - @name as trev shows it, when it is a C++ name ("_Z...")
 * and a demangler was found
 * Return: a malloc'd string, or NULL: show @name as it is.
 * Context: any thread, not a signal handler (allocates).
 */
char *trev__demangle(const char *name);

/*
 * trev__demangle_simplify() - a demangled name reduced to scopes and
 * identifiers: template arguments, parameter lists, return types and
 * cv/ref qualifiers dropped; "(anonymous namespace)" shown as
 * "{anonymous}", "{lambda(int)#1}" as "{lambda#1}", a GCC clone
 * "f(int) [clone .cold]" as "f.cold", and the space of "operator new" or a
 * conversion operator as '_'. The result has no white space.
 * @out: at least strlen(@full) + 1 bytes
 * Return: the length written to @out.
 */
size_t trev__demangle_simplify(const char *full, char *out);

#endif /* TREV_DEMANGLE_H */
