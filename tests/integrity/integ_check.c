/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The integrity harness's checker (integ_check.h). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "integ_check.h"
#include "integ_payload.h"

#define NR_SLOTS	(3 * INTEG_MAX_THREADS)	/* thread, INTEG_SIG, INTEG_END streams */
#define MAX_PROBLEMS	8

struct integ_stream {
	int64_t written;		/* -1: not told */
	int64_t floor;			/* integ_check_prefix(); -1: not told */
	uint64_t read;
	uint8_t *seen;			/* bitmap of seqs read */
	uint64_t seen_bits;
	int64_t last[INTEG_SOURCES];	/* per source, the last seq read; -1 none */
};

struct integ_line_buf {
	char *buf;
	size_t len, cap;
};

struct integ_check {
	pthread_mutex_t lock;
	regex_t re_ev, re_lost, re_drop;
	struct integ_stream s[NR_SLOTS];
	int pid[INTEG_MAX_THREADS];	/* per thread index, 0 until seen */
	int want_comm, per_thread, overwritten;
	uint64_t pending_lost[INTEG_SOURCES];	/* lost lines not yet followed by an event */
	uint64_t thread_lost[INTEG_MAX_THREADS];
	uint64_t read, lost, bad, reorder, dup, other, nproblems;
	char problems[MAX_PROBLEMS][256];
	struct integ_line_buf lb[INTEG_SOURCES];
};

static void problem(struct integ_check *ic, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct integ_check *ic, const char *fmt, ...)
{
	va_list ap;

	if (ic->nproblems++ >= MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(ic->problems[ic->nproblems - 1], sizeof(ic->problems[0]), fmt, ap);
	va_end(ap);
}

static int slot_of(uint32_t stream)
{
	uint32_t kind = stream >> 8, idx = stream & 0xff;

	if (idx >= INTEG_MAX_THREADS || kind > 2 || kind == 3)
		return -1;
	return (int)(kind * INTEG_MAX_THREADS + idx);
}

static uint32_t stream_of(int slot)
{
	return (uint32_t)(slot / INTEG_MAX_THREADS) << 8 | (uint32_t)(slot % INTEG_MAX_THREADS);
}

struct integ_check *integ_check_new(void)
{
	struct integ_check *ic = calloc(1, sizeof(*ic));

	if (!ic)
		abort();
	pthread_mutex_init(&ic->lock, NULL);
	/* Fields separated by whitespace, as the line's producers define it; the flags column is optional. */
	if (regcomp(&ic->re_ev,
		    "^[[:space:]]*(.+)-([0-9]+)[[:space:]]+(\\[[0-9]+\\])[[:space:]]+([^[:space:]]+[[:space:]]+)?"
		    "[0-9.]+:[[:space:]]+integ_rec:[[:space:]]+stream=([0-9]+) seq=([0-9]+) "
		    "len=([0-9]+) check=([0-9a-f]{8}) p=([A-Za-z0-9]*)$", REG_EXTENDED) ||
	    regcomp(&ic->re_lost, "^CPU:[0-9]+ \\[LOST ([0-9]+) EVENTS\\]$", REG_EXTENDED) ||
	    regcomp(&ic->re_drop, "\\[([0-9]+) EVENTS DROPPED\\]", REG_EXTENDED))
		abort();
	for (int i = 0; i < NR_SLOTS; i++) {
		ic->s[i].written = -1;
		ic->s[i].floor = -1;
		for (int j = 0; j < INTEG_SOURCES; j++)
			ic->s[i].last[j] = -1;
	}
	return ic;
}

void integ_check_free(struct integ_check *ic)
{
	if (!ic)
		return;
	for (int i = 0; i < NR_SLOTS; i++)
		free(ic->s[i].seen);
	for (int i = 0; i < INTEG_SOURCES; i++)
		free(ic->lb[i].buf);
	regfree(&ic->re_ev);
	regfree(&ic->re_lost);
	regfree(&ic->re_drop);
	pthread_mutex_destroy(&ic->lock);
	free(ic);
}

void integ_check_expect(struct integ_check *ic, uint32_t stream, uint64_t written)
{
	int slot = slot_of(stream);

	if (slot < 0)
		abort();
	ic->s[slot].written = (int64_t)written;
}

/* Each "stream S written N" line of the counts file @path to @fn. */
static int counts_file(struct integ_check *ic, const char *path,
		       void (*fn)(struct integ_check *ic, uint32_t stream, uint64_t n))
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned int stream;
		unsigned long long w;

		if (sscanf(line, "stream %u written %llu", &stream, &w) == 2 && slot_of(stream) >= 0) {
			fn(ic, stream, w);
			n++;
		}
	}
	fclose(f);
	return n ? 0 : -EINVAL;
}

int integ_check_expect_file(struct integ_check *ic, const char *path)
{
	return counts_file(ic, path, integ_check_expect);
}

void integ_check_prefix(struct integ_check *ic, uint32_t stream, uint64_t floor)
{
	int slot = slot_of(stream);

	if (slot < 0)
		abort();
	ic->s[slot].floor = (int64_t)floor;
}

int integ_check_prefix_file(struct integ_check *ic, const char *path)
{
	return counts_file(ic, path, integ_check_prefix);
}

void integ_check_overwritten(struct integ_check *ic, int on)
{
	ic->overwritten = on;
}

void integ_check_want_comm(struct integ_check *ic, int on)
{
	ic->want_comm = on;
}

static int seen_test_and_set(struct integ_stream *s, uint64_t seq)
{
	int was;

	if (seq >= s->seen_bits) {
		uint64_t bits = s->seen_bits ? s->seen_bits : 4096;
		uint8_t *n;

		while (bits <= seq)
			bits *= 2;
		n = realloc(s->seen, bits / 8);
		if (!n)
			abort();
		memset(n + s->seen_bits / 8, 0, (bits - s->seen_bits) / 8);
		s->seen = n;
		s->seen_bits = bits;
	}
	was = (s->seen[seq / 8] >> (seq % 8)) & 1;
	s->seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
	return was;
}

static void check_event_locked(struct integ_check *ic, unsigned int source, const struct integ_ev *ev)
{
	char want[INTEG_MAX_LEN + 1];
	uint32_t len, check;
	struct integ_stream *s;
	int slot = slot_of(ev->stream);
	unsigned int idx = ev->stream & 0xff;

	ic->read++;
	if (slot < 0) {
		ic->bad++;
		problem(ic, "event #%" PRIu64 ": no such stream %u (seq %" PRIu64 ")", ic->read,
			ev->stream, ev->seq);
		return;
	}
	s = &ic->s[slot];
	len = integ_payload(ev->stream, ev->seq, want);
	check = integ_check_value(ev->stream, ev->seq, want, len);
	if (ev->len != len || ev->plen != len || memcmp(ev->payload, want, len) || ev->check != check) {
		ic->bad++;
		problem(ic, "event #%" PRIu64 " stream %u seq %" PRIu64 ": len=%u (payload %u bytes) "
			"check=%08x p=%.40s%s, expected len=%u check=%08x p=%.40s%s", ic->read,
			ev->stream, ev->seq, ev->len, ev->plen, ev->check, ev->payload,
			ev->plen > 40 ? "..." : "", len, check, want, len > 40 ? "..." : "");
	}
	if (s->written >= 0 && ev->seq >= (uint64_t)s->written) {
		ic->bad++;
		problem(ic, "event #%" PRIu64 " stream %u seq %" PRIu64 ": only %" PRId64 " written",
			ic->read, ev->stream, ev->seq, s->written);
	}
	if (ev->seq < (1ull << 32) && seen_test_and_set(s, ev->seq)) {
		ic->dup++;
		problem(ic, "event #%" PRIu64 " stream %u seq %" PRIu64 ": read twice", ic->read,
			ev->stream, ev->seq);
	}
	if (source < INTEG_SOURCES) {
		if ((int64_t)ev->seq <= s->last[source]) {
			ic->reorder++;
			problem(ic, "event #%" PRIu64 " stream %u seq %" PRIu64 " after seq %" PRId64
				" (source %u)", ic->read, ev->stream, ev->seq, s->last[source], source);
		}
		s->last[source] = (int64_t)ev->seq;
	}
	s->read++;
	if (source < INTEG_SOURCES) {
		ic->thread_lost[idx] += ic->pending_lost[source];
		ic->pending_lost[source] = 0;
	}
	if (ev->pid >= 0) {
		if (!ic->pid[idx]) {
			ic->pid[idx] = ev->pid;
		} else if (ic->pid[idx] != ev->pid) {
			ic->bad++;
			problem(ic, "event #%" PRIu64 " stream %u seq %" PRIu64 ": pid %d, thread %u's "
				"events had pid %d", ic->read, ev->stream, ev->seq, ev->pid, idx,
				ic->pid[idx]);
		}
	}
	if (ic->want_comm && ev->comm) {
		char name[16];

		snprintf(name, sizeof(name), "integ-w%u", idx);
		if (strcmp(ev->comm, name)) {
			ic->bad++;
			problem(ic, "event #%" PRIu64 " stream %u seq %" PRIu64 ": comm '%s', not '%s'",
				ic->read, ev->stream, ev->seq, ev->comm, name);
		}
	}
}

void integ_check_event(struct integ_check *ic, unsigned int source, const struct integ_ev *ev)
{
	pthread_mutex_lock(&ic->lock);
	check_event_locked(ic, source, ev);
	pthread_mutex_unlock(&ic->lock);
}

void integ_check_lost(struct integ_check *ic, uint64_t n)
{
	pthread_mutex_lock(&ic->lock);
	ic->lost += n;
	pthread_mutex_unlock(&ic->lock);
}

static uint64_t match_u64(const char *line, const regmatch_t *m)
{
	return strtoull(line + m->rm_so, NULL, 10);
}

static void check_line_locked(struct integ_check *ic, unsigned int source, const char *line)
{
	regmatch_t m[10];

	if (!line[0] || line[0] == '#')
		return;
	if (regexec(&ic->re_ev, line, 10, m, 0) == 0) {
		char comm[64];
		char payload[INTEG_MAX_LEN + 2];
		size_t clen = (size_t)(m[1].rm_eo - m[1].rm_so);
		size_t plen = (size_t)(m[9].rm_eo - m[9].rm_so);
		struct integ_ev ev;

		if (clen >= sizeof(comm))
			clen = sizeof(comm) - 1;
		memcpy(comm, line + m[1].rm_so, clen);
		comm[clen] = '\0';
		if (plen > INTEG_MAX_LEN + 1)
			plen = INTEG_MAX_LEN + 1;
		memcpy(payload, line + m[9].rm_so, plen);
		payload[plen] = '\0';
		ev.comm = comm;
		ev.pid = (int)match_u64(line, &m[2]);
		ev.stream = (uint32_t)match_u64(line, &m[5]);
		ev.seq = match_u64(line, &m[6]);
		ev.len = (uint32_t)match_u64(line, &m[7]);
		ev.check = (uint32_t)strtoul(line + m[8].rm_so, NULL, 16);
		ev.payload = payload;
		ev.plen = (uint32_t)plen;
		check_event_locked(ic, source, &ev);
		return;
	}
	if (regexec(&ic->re_lost, line, 2, m, 0) == 0 || regexec(&ic->re_drop, line, 2, m, 0) == 0) {
		ic->lost += match_u64(line, &m[1]);
		ic->pending_lost[source % INTEG_SOURCES] += match_u64(line, &m[1]);
		return;
	}
	if (strstr(line, "integ_rec") || strstr(line, "[corrupt record") ||
	    strstr(line, "LOST EVENTS") || strstr(line, "EVENTS DROPPED") ||
	    strstr(line, "Unknown type")) {
		ic->bad++;
		problem(ic, "line not understood: %.200s", line);
		return;
	}
	ic->other++;
}

void integ_check_line(struct integ_check *ic, unsigned int source, const char *line)
{
	pthread_mutex_lock(&ic->lock);
	check_line_locked(ic, source, line);
	pthread_mutex_unlock(&ic->lock);
}

void integ_check_feed(struct integ_check *ic, unsigned int source, const char *buf, size_t len)
{
	struct integ_line_buf *lb = &ic->lb[source % INTEG_SOURCES];

	pthread_mutex_lock(&ic->lock);
	if (lb->len + len + 1 > lb->cap) {
		lb->cap = (lb->len + len + 1) * 2;
		lb->buf = realloc(lb->buf, lb->cap);
		if (!lb->buf)
			abort();
	}
	memcpy(lb->buf + lb->len, buf, len);
	lb->len += len;
	lb->buf[lb->len] = '\0';
	{
		char *p = lb->buf, *nl;

		while ((nl = memchr(p, '\n', lb->len - (size_t)(p - lb->buf)))) {
			*nl = '\0';
			check_line_locked(ic, source, p);
			p = nl + 1;
		}
		lb->len -= (size_t)(p - lb->buf);
		memmove(lb->buf, p, lb->len + 1);
	}
	pthread_mutex_unlock(&ic->lock);
}

uint64_t integ_check_ends(struct integ_check *ic)
{
	uint64_t n = 0;

	pthread_mutex_lock(&ic->lock);
	for (int i = 0; i < INTEG_MAX_THREADS; i++)
		n += ic->s[slot_of(INTEG_END | (uint32_t)i)].read;
	pthread_mutex_unlock(&ic->lock);
	return n;
}

uint64_t integ_check_read(struct integ_check *ic)
{
	uint64_t n;

	pthread_mutex_lock(&ic->lock);
	n = ic->read;
	pthread_mutex_unlock(&ic->lock);
	return n;
}

uint64_t integ_check_lost_total(struct integ_check *ic)
{
	uint64_t n;

	pthread_mutex_lock(&ic->lock);
	n = ic->lost;
	pthread_mutex_unlock(&ic->lock);
	return n;
}

void integ_check_per_thread(struct integ_check *ic, int on)
{
	ic->per_thread = on;
}

uint64_t integ_check_thread_lost(struct integ_check *ic, unsigned int idx)
{
	uint64_t n;

	pthread_mutex_lock(&ic->lock);
	n = idx < INTEG_MAX_THREADS ? ic->thread_lost[idx] : 0;
	pthread_mutex_unlock(&ic->lock);
	return n;
}

uint64_t integ_check_stream_read(struct integ_check *ic, uint32_t stream)
{
	int slot = slot_of(stream);
	uint64_t n;

	if (slot < 0)
		return 0;
	pthread_mutex_lock(&ic->lock);
	n = ic->s[slot].read;
	pthread_mutex_unlock(&ic->lock);
	return n;
}

uint64_t integ_check_faults(struct integ_check *ic)
{
	uint64_t n;

	pthread_mutex_lock(&ic->lock);
	n = ic->bad + ic->reorder + ic->dup;
	pthread_mutex_unlock(&ic->lock);
	return n;
}

int integ_check_verdict(struct integ_check *ic, const char *name, enum integ_relation rel,
			FILE *out)
{
	uint64_t written = 0;
	int fail = 0, told = 0;

	pthread_mutex_lock(&ic->lock);
	for (int i = 0; i < INTEG_SOURCES; i++)
		if (ic->lb[i].len) {
			ic->bad++;
			problem(ic, "source %d ended in a partial line: %.100s", i, ic->lb[i].buf);
		}
	for (int i = 0; i < NR_SLOTS; i++) {
		struct integ_stream *s = &ic->s[i];
		uint64_t from;

		if (s->written < 0) {
			if (s->read) {
				ic->bad++;
				problem(ic, "stream %u: %" PRIu64 " events read, none written",
					stream_of(i), s->read);
			}
			continue;
		}
		told = 1;
		written += (uint64_t)s->written;
		/* Counts given after the events came: no seq may lie beyond them. */
		for (uint64_t q = (uint64_t)s->written; q < s->seen_bits; q++)
			if ((s->seen[q / 8] >> (q % 8)) & 1) {
				ic->bad++;
				problem(ic, "stream %u: seq %" PRIu64 " read, only %" PRId64 " written",
					stream_of(i), q, s->written);
				break;
			}
		/* Overwritten: the thread's losses are its oldest events. */
		from = s->floor >= 0 && ic->overwritten ? ic->thread_lost[stream_of(i) & 0xff] : 0;
		if (s->floor >= 0 && s->read + from < (uint64_t)s->floor) {
			fail = 1;
			problem(ic, "stream %u: %" PRIu64 " events read and %" PRIu64 " lost, %" PRId64
				" were written before", stream_of(i), s->read, from, s->floor);
		}
		/* Read exactly once each (dup), so all of from .. from + read - 1 seen means no gap. */
		for (uint64_t q = from; s->floor >= 0 && q < from + s->read; q++)
			if (q >= s->seen_bits || !((s->seen[q / 8] >> (q % 8)) & 1)) {
				fail = 1;
				problem(ic, "stream %u: seq %" PRIu64 " missing, %" PRIu64 " events read "
					"after %" PRIu64 " lost", stream_of(i), q, s->read, from);
				break;
			}
		if (rel == INTEG_EXACT && (stream_of(i) & INTEG_END) && s->read != (uint64_t)s->written) {
			fail = 1;
			problem(ic, "stream %u: its final event was not read", stream_of(i));
		}
	}
	for (int t = 0; ic->per_thread && rel == INTEG_EXACT && t < INTEG_MAX_THREADS; t++) {
		uint64_t w = 0, r = 0;
		int any = 0;

		for (int k = 0; k < 3; k++) {
			struct integ_stream *s = &ic->s[k * INTEG_MAX_THREADS + t];

			if (s->written >= 0) {
				any = 1;
				w += (uint64_t)s->written;
			}
			r += s->read;
		}
		if (any && w != r + ic->thread_lost[t]) {
			fail = 1;
			problem(ic, "thread %d: written %" PRIu64 " != read %" PRIu64 " + its lost %" PRIu64,
				t, w, r, ic->thread_lost[t]);
		}
	}
	for (int i = 0; i < INTEG_SOURCES; i++)
		if (ic->pending_lost[i]) {
			fail = 1;
			problem(ic, "source %d: %" PRIu64 " lost events reported after its last event", i,
				ic->pending_lost[i]);
		}
	if (!told) {
		fail = 1;
		problem(ic, "no written counts were given");
	}
	if (ic->bad || ic->reorder || ic->dup)
		fail = 1;
	if (rel == INTEG_EXACT && written != ic->read + ic->lost) {
		fail = 1;
		problem(ic, "written %" PRIu64 " != read %" PRIu64 " + lost %" PRIu64, written,
			ic->read, ic->lost);
	}
	if (rel == INTEG_ATMOST && written < ic->read + ic->lost) {
		fail = 1;
		problem(ic, "written %" PRIu64 " < read %" PRIu64 " + lost %" PRIu64, written,
			ic->read, ic->lost);
	}
	fprintf(out, "%s: written=%" PRIu64 " read=%" PRIu64 " lost=%" PRIu64 " bad=%" PRIu64
		" reorder=%" PRIu64 " dup=%" PRIu64 " other=%" PRIu64 "%s\n", name, written, ic->read,
		ic->lost, ic->bad, ic->reorder, ic->dup, ic->other, fail ? " FAIL" : "");
	for (uint64_t i = 0; i < ic->nproblems && i < MAX_PROBLEMS; i++)
		fprintf(out, "  %s\n", ic->problems[i]);
	if (ic->nproblems > MAX_PROBLEMS)
		fprintf(out, "  ... %" PRIu64 " problems in all\n", ic->nproblems);
	pthread_mutex_unlock(&ic->lock);
	return fail;
}
