/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function tracer's registration of one object's patchable entries
 * (docs/function-tracer.md). Not included by hand: `pkg-config
 * --variable=function_cflags trev` passes it to every file with -include,
 * beside -fpatchable-function-entry=5.
 *
 * Each file that includes it adds a constructor and a destructor that hand
 * the object's __patchable_function_entries (one address per function, the
 * linker's __start_/__stop_ symbols of this object, hidden) to libtrev. The
 * registration runs before anything else of the object can: that is when
 * the 5 one-byte nops gcc emits are made into one 5-byte nop, which is safe
 * only while no thread runs them. Several files of an object register the
 * same table; libtrev counts them. The references to libtrev are strong: a
 * weak one alone would let the linker's --as-needed drop libtrev from a
 * program that uses nothing else of it. Link with `pkg-config --libs trev`.
 */
#ifndef TREV_FENTRY_H
#define TREV_FENTRY_H

#ifdef __cplusplus
extern "C" {
#endif

void trev_function_register(const void *const *start, const void *const *stop);
void trev_function_unregister(const void *const *start);

extern const void *const __start___patchable_function_entries[]
	__attribute__((weak, visibility("hidden")));
extern const void *const __stop___patchable_function_entries[]
	__attribute__((weak, visibility("hidden")));

static __attribute__((constructor(101), used, patchable_function_entry(0, 0))) void
trev_fentry_register_(void)
{
	if (__start___patchable_function_entries)
		trev_function_register(__start___patchable_function_entries,
				       __stop___patchable_function_entries);
}

static __attribute__((destructor(101), used, patchable_function_entry(0, 0))) void
trev_fentry_unregister_(void)
{
	if (__start___patchable_function_entries)
		trev_function_unregister(__start___patchable_function_entries);
}

#ifdef __cplusplus
}
#endif

#endif /* TREV_FENTRY_H */
