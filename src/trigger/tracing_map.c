/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The histogram map, after the kernel's tracing_map: open addressing with
 * linear probing over a table twice the number of elements, elements taken
 * from a preallocated array, keys claimed by compare-and-swap. Nothing in
 * the insert path allocates, locks or calls the system.
 *
 * Layout:
 *
 *   table[2^(bits+1)]  { hash, elt }     16 bytes a slot
 *   elts[2^bits]       comm | sums | key (struct trev_tmap_elt)
 *   next_elt           how many elts were handed out
 *
 * A slot goes through these states, each change made once, by one thread:
 *
 *   EMPTY {0, NULL} --CAS hash--> CLAIMED {h, NULL} --store-release elt--> LIVE {h, elt}
 *                                      |
 *                                      +--no element left--> DEAD {h, &tmap_dead}
 *
 * Invariants: a hash is never 0 (0 marks an empty slot); a slot never goes
 * back to EMPTY, so a key is in at most one LIVE slot only if every thread
 * that finds its hash CLAIMED waits for it to become LIVE or DEAD — it spins,
 * for at most a table's length of polls, and then counts a drop rather than
 * insert the key twice. An element is written (key, comm; sums are zero
 * from calloc) before the release store that makes its slot LIVE; readers
 * load elt with acquire, so they see the key whole. A DEAD slot is skipped:
 * its element was never made, and the map is full for good (:clear swaps in
 * a fresh map, see hist.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trigger/tracing_map.h"

struct tmap_slot {
	_Atomic uint32_t hash;			/* 0: empty */
	uint32_t pad;
	_Atomic(struct trev_tmap_elt *) elt;	/* NULL: being made; &tmap_dead: none */
};

struct trev_tmap {
	unsigned int bits;		/* 2^bits elements */
	unsigned int key_size;		/* bytes, multiple of 8 */
	unsigned int n_sums;
	unsigned int elt_size;		/* bytes of one element */
	uint32_t table_mask;		/* 2^(bits+1) - 1 */
	trev_tmap_init_fn init;
	struct tmap_slot *table;
	unsigned char *elts;		/* 2^bits elements of elt_size bytes */
	_Atomic uint32_t next_elt;	/* elements handed out (may pass the count) */
	_Atomic uint64_t drops;		/* inserts refused: map full */
};

/* The elt of a DEAD slot. */
static struct trev_tmap_elt tmap_dead;

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

/* A 32-bit hash of a key of 8-byte words, never 0. */
static uint32_t tmap_hash(const void *key, unsigned int size)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ size;

	for (unsigned int i = 0; i < size; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h ? (uint32_t)h : 1;
}

/*
 * Wait for a CLAIMED slot to become LIVE or DEAD. Return its elt, or NULL
 * when it stayed CLAIMED too long (its writer was preempted, or is the
 * thread a signal handler interrupted).
 */
static struct trev_tmap_elt *tmap_wait_live(struct trev_tmap *m, struct tmap_slot *s)
{
	for (uint32_t spin = 0; spin <= m->table_mask; spin++) {
		/* Acquire: pairs with the release store of the elt in tmap_claim(). */
		struct trev_tmap_elt *elt = atomic_load_explicit(&s->elt, memory_order_acquire);

		if (elt)
			return elt;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	return NULL;
}

/* Make the element of a slot this thread just CLAIMED. */
static struct trev_tmap_elt *tmap_claim(struct trev_tmap *m, struct tmap_slot *s,
					const void *key)
{
	uint32_t i = atomic_fetch_add_explicit(&m->next_elt, 1, memory_order_relaxed);
	struct trev_tmap_elt *elt;

	if (i >> m->bits) {
		atomic_store_explicit(&s->elt, &tmap_dead, memory_order_release);
		atomic_fetch_add_explicit(&m->drops, 1, memory_order_relaxed);
		return NULL;
	}
	elt = (struct trev_tmap_elt *)(void *)(m->elts + (size_t)i * m->elt_size);
	memcpy((unsigned char *)elt->sums + 8 * m->n_sums, key, m->key_size);
	if (m->init)
		m->init(elt);
	/* Release: the key and comm above are seen by whoever sees the elt. */
	atomic_store_explicit(&s->elt, elt, memory_order_release);
	return elt;
}

static struct trev_tmap_elt *tmap_find(struct trev_tmap *m, const void *key, bool insert)
{
	uint32_t hash = tmap_hash(key, m->key_size);
	uint32_t idx = hash & m->table_mask;

	for (uint32_t n = 0; n <= m->table_mask; n++, idx = (idx + 1) & m->table_mask) {
		struct tmap_slot *s = &m->table[idx];
		uint32_t h = atomic_load_explicit(&s->hash, memory_order_relaxed);

		if (!h) {
			if (!insert)
				return NULL;
			/*
			 * Relaxed CAS: the slot's contents are published by the
			 * release store of elt, not by the hash.
			 */
			if (atomic_compare_exchange_strong_explicit(&s->hash, &h, hash,
								    memory_order_relaxed,
								    memory_order_relaxed))
				return tmap_claim(m, s, key);
			/* Lost the race: h now holds the winner's hash; look at it. */
		}
		if (h == hash) {
			struct trev_tmap_elt *elt = tmap_wait_live(m, s);

			if (!elt) {
				if (insert)
					atomic_fetch_add_explicit(&m->drops, 1,
								  memory_order_relaxed);
				return NULL;
			}
			if (elt != &tmap_dead &&
			    memcmp(trev__tmap_elt_key(m, elt), key, m->key_size) == 0)
				return elt;
		}
	}
	if (insert)
		atomic_fetch_add_explicit(&m->drops, 1, memory_order_relaxed);
	return NULL;
}

struct trev_tmap_elt *trev__tmap_insert(struct trev_tmap *m, const void *key)
{
	return tmap_find(m, key, true);
}

struct trev_tmap_elt *trev__tmap_lookup(struct trev_tmap *m, const void *key)
{
	return tmap_find(m, key, false);
}

int trev__tmap_for_each(struct trev_tmap *m, int (*fn)(struct trev_tmap_elt *elt, void *arg),
			void *arg)
{
	for (uint32_t i = 0; i <= m->table_mask; i++) {
		struct trev_tmap_elt *elt = atomic_load_explicit(&m->table[i].elt,
								 memory_order_acquire);
		int ret;

		if (!elt || elt == &tmap_dead)
			continue;
		ret = fn(elt, arg);
		if (ret)
			return ret;
	}
	return 0;
}
