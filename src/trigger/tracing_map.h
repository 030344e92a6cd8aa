/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The histogram map (the kernel's tracing_map): a lock-free hash table of
 * preallocated elements, each a fixed-size key and a few 64-bit sums. Hist
 * triggers insert from the event path; readers walk a live map.
 */
#ifndef TREV_TRACING_MAP_H
#define TREV_TRACING_MAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TREV_TMAP_BITS_MIN	7	/* size= is rounded up to a power of 2 in */
#define TREV_TMAP_BITS_MAX	17	/* [2^7, 2^17], as the kernel's */
#define TREV_TMAP_BITS_DEFAULT	11	/* 2048 elements */
#define TREV_TMAP_SUMS_MAX	512	/* hitcount, values, and the words hist.c keeps after them */
#define TREV_TMAP_COMM_LEN	16	/* a thread name, NUL included */

struct trev_tmap;

/*
 * One element: the key it was inserted with and its sums.
 *
 *   OFFSET  SIZE            MEANING
 *   0       16              comm: the inserting thread's name, if asked for
 *   16      8 * n_sums      sums, updated with relaxed atomic adds
 *   16+8n   key_size        the key, a multiple of 8 bytes, zero padded
 */
struct trev_tmap_elt {
	char comm[TREV_TMAP_COMM_LEN];	/* set before the element is published */
	_Atomic uint64_t sums[];	/* n_sums, then the key */
};

/* Called on a new element before it is published (the kernel's elt_init). */
typedef void (*trev_tmap_init_fn)(struct trev_tmap_elt *elt);

/*
 * trev__tmap_create() - a map of 2^@bits elements in a table of 2^(@bits+1)
 * @key_size: bytes per key, a multiple of 8
 * @n_sums: sums per element, 1..TREV_TMAP_SUMS_MAX
 * @init: called on each new element (NULL: none)
 * Return: the map, or NULL (errno: EINVAL, ENOMEM).
 * Context: not in the event path (allocates).
 */
struct trev_tmap *trev__tmap_create(unsigned int bits, unsigned int key_size,
				    unsigned int n_sums, trev_tmap_init_fn init);

/* Free @m. Context: no inserter or reader can see it any more. */
void trev__tmap_destroy(struct trev_tmap *m);

/*
 * trev__tmap_insert() - the element of @key, made when it is new
 * Return: the element, or NULL when the map is full (counted in drops).
 * Context: any thread, async-signal-safe; no allocation, no lock, and no
 * thread ever waits for another (at most one pass over the table).
 */
struct trev_tmap_elt *trev__tmap_insert(struct trev_tmap *m, const void *key);

/*
 * trev__tmap_insert_word() - trev__tmap_insert() of the 8-byte key @key,
 * for a map made with @key_size 8; the same element, found in fewer steps
 * when it is in the slot its hash points at. Context: as trev__tmap_insert().
 */
struct trev_tmap_elt *trev__tmap_insert_word(struct trev_tmap *m, uint64_t key);

/* The element of @key, or NULL. Context: as trev__tmap_insert(). */
struct trev_tmap_elt *trev__tmap_lookup(struct trev_tmap *m, const void *key);

/* Add @v to sum @i of @elt. Context: any thread, signal-safe. */
static inline void trev__tmap_add(struct trev_tmap_elt *elt, unsigned int i, uint64_t v)
{
	/* Relaxed: a sum orders nothing; readers want each sum whole, not a cut. */
	atomic_fetch_add_explicit(&elt->sums[i], v, memory_order_relaxed);
}

static inline uint64_t trev__tmap_read_sum(struct trev_tmap_elt *elt, unsigned int i)
{
	return atomic_load_explicit(&elt->sums[i], memory_order_relaxed);
}

/* The key of an element of @m. */
const void *trev__tmap_elt_key(const struct trev_tmap *m, const struct trev_tmap_elt *elt);

unsigned int trev__tmap_key_size(const struct trev_tmap *m);
unsigned int trev__tmap_n_sums(const struct trev_tmap *m);
unsigned int trev__tmap_bits(const struct trev_tmap *m);
/* Inserts refused because the map was full. */
uint64_t trev__tmap_drops(const struct trev_tmap *m);

/*
 * trev__tmap_for_each() - visit every published element, in table order
 * Return: what a non-zero @fn returned, else 0.
 * Context: any thread; inserts may run meanwhile (an element published
 * during the walk may or may not be seen).
 */
int trev__tmap_for_each(struct trev_tmap *m, int (*fn)(struct trev_tmap_elt *elt, void *arg),
			void *arg);

#endif /* TREV_TRACING_MAP_H */
