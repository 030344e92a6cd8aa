/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integrity harness's payload: every byte of an integ:integ_rec event is
 * a pure function of (stream, seq), so any reader can recompute it.
 * Async-signal-safe (arithmetic and stores only): signal handlers build it.
 *
 * A stream is one writer's sequence:
 *
 *   BITS  MEANING
 *   0-7   writer thread index (0 .. INTEG_MAX_THREADS - 1)
 *   8     INTEG_SIG: written by that thread's SIGUSR1 handler
 *   9     INTEG_END: the thread's final events (seq 0, 1, ...: one on each
 *         CPU), written after the readers drained, so that they carry any
 *         loss left unreported
 */
#ifndef INTEG_PAYLOAD_H
#define INTEG_PAYLOAD_H

#include <stdint.h>

#define INTEG_MAX_THREADS	64
#define INTEG_SIG		0x100u
#define INTEG_END		0x200u
#define INTEG_MAX_LEN		200	/* payload lengths 0..200: records land at every page offset */

static inline uint64_t integ_mix(uint32_t stream, uint64_t seq)
{
	uint64_t x = seq * 0x9e3779b97f4a7c15ull ^ ((uint64_t)stream << 40 | 0x5bd1e995u);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Fill @buf (INTEG_MAX_LEN + 1 bytes) with the payload of (@stream, @seq). Return: its length. */
static inline uint32_t integ_payload(uint32_t stream, uint64_t seq, char *buf)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	uint64_t x = integ_mix(stream, seq);
	uint32_t len = (uint32_t)(x % (INTEG_MAX_LEN + 1));

	for (uint32_t i = 0; i < len; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = alphabet[(x >> 33) % 62];
	}
	buf[len] = '\0';
	return len;
}

/* FNV-1a over stream and seq (little-endian bytes) and the payload. */
static inline uint32_t integ_check_value(uint32_t stream, uint64_t seq, const char *p, uint32_t len)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 4; i++)
		h = (h ^ ((stream >> (8 * i)) & 0xff)) * 16777619u;
	for (int i = 0; i < 8; i++)
		h = (h ^ ((seq >> (8 * i)) & 0xff)) * 16777619u;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 16777619u;
	return h;
}

#endif /* INTEG_PAYLOAD_H */
