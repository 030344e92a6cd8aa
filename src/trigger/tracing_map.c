/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The histogram map, after the kernel's tracing_map: open addressing with
 * linear probing over a table twice the number of elements, elements taken
 * from a preallocated array, keys published by compare-and-swap. Nothing in
 * the insert path allocates, locks, waits for another thread or calls the
 * system.
 *
 * Layout:
 *
 *   table[2^(bits+1)]  one 64-bit word a slot: hash << 32 | (element + 1)
 *   elts[2^bits]       comm | sums | key (struct trev_tmap_elt)
 *   next_elt           elements handed out
 *   spare              an element taken and not used (+1), or 0
 *
 * A slot goes from EMPTY (0) to LIVE (hash, element) in one CAS, once:
 *
 *   take an element, write its key (and comm) --CAS release 0 -> word--> LIVE
 *
 * so a slot is never seen half made: a thread that finds it LIVE (load
 * acquire) reads the whole key. The kernel claims the slot's hash first and
 * publishes the element after, so that others must wait on a claimed slot;
 * here nobody waits. The price: two threads inserting one new key at once
 * both take an element; the loser gives its element back (next_elt back by
 * one if nobody took another since, else into the one spare), and in the
 * rare case both are taken it stays unused: the map then holds one entry
 * fewer before it is full.
 *
 * Invariants: a hash is never 0, so a LIVE word is never 0; a slot never
 * goes back to EMPTY (:clear swaps in a fresh map, see hist.c); a key is in
 * at most one LIVE slot, because an inserter only takes an EMPTY slot that
 * lies before any LIVE slot of its key on its probe sequence, and the CAS
 * makes it re-check a slot another thread filled first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <trev/common.h>

#include "trigger/tracing_map.h"

struct trev_tmap {
	unsigned int bits;		/* 2^bits elements */
	unsigned int key_size;		/* bytes, multiple of 8 */
	unsigned int n_sums;
	unsigned int elt_size;		/* bytes of one element */
	uint32_t table_mask;		/* 2^(bits+1) - 1 */
	trev_tmap_init_fn init;
	_Atomic uint64_t *table;	/* hash << 32 | (element index + 1); 0: empty */
	unsigned char *elts;		/* 2^bits elements of elt_size bytes */
	_Atomic uint32_t next_elt;	/* elements handed out, at most 2^bits */
	_Atomic uint32_t spare;		/* an element given back (+1), or 0 */
	_Atomic uint64_t drops;		/* inserts refused: map full */
};

struct trev_tmap *trev__tmap_create(unsigned int bits, unsigned int key_size,
				    unsigned int n_sums, trev_tmap_init_fn init)
{
	struct trev_tmap *m;

	if (bits < TREV_TMAP_BITS_MIN || bits > TREV_TMAP_BITS_MAX || !key_size ||
	    key_size % 8 || !n_sums || n_sums > TREV_TMAP_SUMS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->bits = bits;
	m->key_size = key_size;
	m->n_sums = n_sums;
	m->elt_size = (unsigned int)sizeof(struct trev_tmap_elt) + 8 * n_sums + key_size;
	m->table_mask = (2u << bits) - 1;
	m->init = init;
	m->table = calloc((size_t)m->table_mask + 1, sizeof(*m->table));
	m->elts = calloc((size_t)1 << bits, m->elt_size);
	if (!m->table || !m->elts) {
		trev__tmap_destroy(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void trev__tmap_destroy(struct trev_tmap *m)
{
	if (!m)
		return;
	free(m->table);
	free(m->elts);
	free(m);
}

const void *trev__tmap_elt_key(const struct trev_tmap *m, const struct trev_tmap_elt *elt)
{
	return (const unsigned char *)elt->sums + 8 * m->n_sums;
}

unsigned int trev__tmap_key_size(const struct trev_tmap *m)
{
	return m->key_size;
}

unsigned int trev__tmap_n_sums(const struct trev_tmap *m)
{
	return m->n_sums;
}

unsigned int trev__tmap_bits(const struct trev_tmap *m)
{
	return m->bits;
}

uint64_t trev__tmap_drops(const struct trev_tmap *m)
{
	return atomic_load_explicit(&m->drops, memory_order_relaxed);
}

#define TMAP_HASH_SEED	0x9e3779b97f4a7c15ull
#define TMAP_HASH_MUL1	0xff51afd7ed558ccdull

/*
 * The 32-bit result, never 0: its top bit set, which no table index uses
 * (2^18 slots at most), so the slot's element is found by the low bits.
 */
static inline uint32_t tmap_hash_final(uint64_t h)
{
	return (uint32_t)h | 0x80000000u;
}

/* A 32-bit hash of a key of 8-byte words, never 0: each word multiplied in and folded. */
static uint32_t tmap_hash(const void *key, unsigned int size)
{
	const unsigned char *p = key;
	uint64_t h = TMAP_HASH_SEED ^ size;

	for (unsigned int i = 0; i < size; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * TMAP_HASH_MUL1;
		h ^= h >> 32;
	}
	return tmap_hash_final(h);
}

/* tmap_hash() of the one-word key @w, the same number. */
static inline uint32_t tmap_hash_word(uint64_t w)
{
	uint64_t h = ((TMAP_HASH_SEED ^ 8) ^ w) * TMAP_HASH_MUL1;

	return tmap_hash_final(h ^ (h >> 32));
}

/* Keys of @size bytes (a multiple of 8) equal: words, not a call to memcmp(). */
static inline bool tmap_key_equal(const void *a, const void *b, unsigned int size)
{
	const unsigned char *x = a, *y = b;

	for (unsigned int i = 0; i < size; i += 8) {
		uint64_t u, v;

		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		if (u != v)
			return false;
	}
	return true;
}

static struct trev_tmap_elt *tmap_elt(struct trev_tmap *m, uint32_t i)
{
	return (struct trev_tmap_elt *)(void *)(m->elts + (size_t)i * m->elt_size);
}

/* An unused element (its index), or -1 when all are taken. */
static int64_t tmap_take(struct trev_tmap *m)
{
	/*
	 * Acquire, here and on next_elt: an element given back was written by
	 * the thread that gave it (its key); pairs with the releases in
	 * tmap_give_back().
	 */
	uint32_t n = atomic_exchange_explicit(&m->spare, 0, memory_order_acquire);

	if (n)
		return n - 1;
	n = atomic_load_explicit(&m->next_elt, memory_order_relaxed);
	do {
		if (n >> m->bits)
			return -1;
	} while (!atomic_compare_exchange_weak_explicit(&m->next_elt, &n, n + 1,
							 memory_order_acquire,
							 memory_order_relaxed));
	return n;
}

/* Give back element @i, taken and never published (its sums are still 0). */
static void tmap_give_back(struct trev_tmap *m, uint32_t i)
{
	uint32_t expect = i + 1, none = 0;

	/* Release: our writes to the element come before its next owner's. */
	if (atomic_compare_exchange_strong_explicit(&m->next_elt, &expect, i,
						    memory_order_release, memory_order_relaxed))
		return;
	/* Someone took one after it: keep it as the spare, or lose it if that is taken. */
	atomic_compare_exchange_strong_explicit(&m->spare, &none, i + 1, memory_order_release,
						memory_order_relaxed);
}

static struct trev_tmap_elt *tmap_find(struct trev_tmap *m, const void *key, bool insert)
{
	uint32_t hash = tmap_hash(key, m->key_size);
	uint32_t idx = hash & m->table_mask;
	int64_t mine = -1;

	for (uint32_t n = 0; n <= m->table_mask; n++, idx = (idx + 1) & m->table_mask) {
		/* Acquire: pairs with the release CAS below; the element's key is whole. */
		uint64_t v = atomic_load_explicit(&m->table[idx], memory_order_acquire);

		if (!v) {
			struct trev_tmap_elt *elt;

			if (!insert)
				return NULL;
			if (mine < 0) {
				mine = tmap_take(m);
				if (mine < 0)
					break;
				elt = tmap_elt(m, (uint32_t)mine);
				memcpy((unsigned char *)elt->sums + 8 * m->n_sums, key, m->key_size);
				if (m->init)
					m->init(elt);
			}
			/* Release: the key and comm written above go with the word. */
			if (atomic_compare_exchange_strong_explicit(
				    &m->table[idx], &v, (uint64_t)hash << 32 | (uint64_t)(mine + 1),
				    memory_order_release, memory_order_acquire))
				return tmap_elt(m, (uint32_t)mine);
			/* Another thread filled the slot first: v is its word; look at it. */
		}
		if ((uint32_t)(v >> 32) == hash) {
			struct trev_tmap_elt *elt = tmap_elt(m, (uint32_t)v - 1);

			if (tmap_key_equal(trev__tmap_elt_key(m, elt), key, m->key_size)) {
				if (mine >= 0)
					tmap_give_back(m, (uint32_t)mine);
				return elt;
			}
		}
	}
	if (mine >= 0)
		tmap_give_back(m, (uint32_t)mine);
	if (insert)
		atomic_fetch_add_explicit(&m->drops, 1, memory_order_relaxed);
	return NULL;
}

struct trev_tmap_elt *trev__tmap_insert(struct trev_tmap *m, const void *key)
{
	return tmap_find(m, key, true);
}

static __attribute__((noinline)) struct trev_tmap_elt *tmap_insert_word_slow(struct trev_tmap *m,
									   uint64_t key)
{
	return tmap_find(m, &key, true);
}

/*
 * The common case of a one-word key (a numeric hist key): the slot its hash
 * points at holds it. A collision, a new key or a full map goes the whole
 * way, with the same hash.
 */
struct trev_tmap_elt *trev__tmap_insert_word(struct trev_tmap *m, uint64_t key)
{
	uint32_t hash = tmap_hash_word(key);
	/* Acquire: as in tmap_find(), the element's key is whole. */
	uint64_t v = atomic_load_explicit(&m->table[hash & m->table_mask], memory_order_acquire);

	if (trev_likely((uint32_t)(v >> 32) == hash)) {
		struct trev_tmap_elt *elt = tmap_elt(m, (uint32_t)v - 1);
		uint64_t k;

		memcpy(&k, trev__tmap_elt_key(m, elt), 8);
		if (trev_likely(k == key))
			return elt;
	}
	return tmap_insert_word_slow(m, key);
}

struct trev_tmap_elt *trev__tmap_lookup(struct trev_tmap *m, const void *key)
{
	return tmap_find(m, key, false);
}

int trev__tmap_for_each(struct trev_tmap *m, int (*fn)(struct trev_tmap_elt *elt, void *arg),
			void *arg)
{
	for (uint32_t i = 0; i <= m->table_mask; i++) {
		uint64_t v = atomic_load_explicit(&m->table[i], memory_order_acquire);
		int ret;

		if (!v)
			continue;
		ret = fn(tmap_elt(m, (uint32_t)v - 1), arg);
		if (ret)
			return ret;
	}
	return 0;
}
