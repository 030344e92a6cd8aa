/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CTF 1.8 output for `trev convert --to ctf` (docs/cli/trev-convert.md): an
 * ftrace event format mapped to CTF field types, the TSDL metadata text, and
 * records serialised into packets. Nothing here reads a file or links
 * libtraceevent: the caller hands over the formats and the record bytes,
 * which are trusted no more than the file they came from.
 */
#ifndef TREV_TOOLS_CTF_H
#define TREV_TOOLS_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* How one ftrace field is stored in CTF (the table in docs/cli/trev-convert.md). */
enum trev_ctf_kind {
	TREV_CTF_INT,		/* integer of 1, 2, 4 or 8 bytes */
	TREV_CTF_STR,		/* char[N]: a string, up to its first NUL */
	TREV_CTF_ARRAY,		/* T[N]: an array of N integers */
	TREV_CTF_DYN_STR,	/* __data_loc char[]: a string */
	TREV_CTF_DYN_ARRAY,	/* __data_loc T[]: a length, then a sequence */
	TREV_CTF_TAIL_STR,	/* char buf[] of size 0: the rest of the record, a string */
	TREV_CTF_TAIL_ARRAY,	/* T buf[] of size 0: the rest of the record, a sequence */
};

/* A field as the file's format text describes it (libtraceevent's view). */
struct trev_ctf_field_in {
	const char *type;	/* "unsigned int", "char[16]", "__data_loc int[]" ... */
	const char *name;
	int offset;		/* in the record, common fields included */
	int size;		/* bytes in the record (4 for __data_loc/__rel_loc) */
	unsigned int arraylen;	/* N of T[N], 0 otherwise */
	bool is_signed;
	bool is_array;		/* T[N] or T[] */
	bool is_dynamic;	/* __data_loc or __rel_loc */
	bool is_relative;	/* __rel_loc: offset from the field's end */
};

/* One label of an enum field: the value __print_symbolic()/__print_flags() names. */
struct trev_ctf_label {
	uint64_t value;		/* as the field's integer (sign-extended when signed) */
	const char *label;	/* the print fmt's text for it */
};

/*
 * What a field's companion string (trev_ctf_stream_event_strs()) holds: a
 * string field "_NAME_sym" or "_NAME_str" right after it.
 */
enum trev_ctf_companion {
	TREV_CTF_COMP_NONE,
	TREV_CTF_COMP_SYM,	/* _NAME_sym: the function a code address names */
	TREV_CTF_COMP_STR,	/* _NAME_str: __print_flags' text ("READ|SYNC") */
};

struct trev_ctf_field {
	char name[64];		/* the CTF name, '_' + the field's name (made an identifier) */
	enum trev_ctf_kind kind;
	unsigned int offset;	/* in the record */
	unsigned int size;	/* bytes in the record */
	unsigned int elem;	/* integer (element) size in bytes: 1, 2, 4 or 8 */
	unsigned int count;	/* TREV_CTF_ARRAY: elements */
	bool is_signed;
	bool hex;		/* pointers and byte blobs: base 16 */
	bool relative;		/* __rel_loc */
	const struct trev_ctf_label *labels;	/* TREV_CTF_INT: a CTF enum of these, or NULL */
	unsigned int nr_labels;
	enum trev_ctf_companion companion;	/* a string after the field, or none */
};

struct trev_ctf_event {
	unsigned int id;	/* the event's ftrace id, also its CTF id */
	char *name;		/* "system:event" */
	struct trev_ctf_field *fields;
	unsigned int nr_fields;
	bool text;		/* a last string field, "text": the caller's rendering */
};

/*
 * trev_ctf_field_map() - how @in is stored in CTF
 * @out: receives the mapping
 * @in: the field as the format describes it
 * @long_size: sizeof(long) of the traced machine (4 or 8)
 * @why, @why_size: what is wrong with the field, on error
 * Return: 0, or -EINVAL (a size, offset or array length that cannot be).
 */
int trev_ctf_field_map(struct trev_ctf_field *out, const struct trev_ctf_field_in *in,
		       int long_size, char *why, size_t why_size);

/*
 * trev_ctf_event_check() - @ev's field names unique once made identifiers
 * (and with the length fields sequences add). Return: 0 or -EINVAL + @why.
 */
int trev_ctf_event_check(const struct trev_ctf_event *ev, char *why, size_t why_size);

/* What the metadata says about the trace as a whole. */
struct trev_ctf_trace {
	bool big_endian;	/* the file's byte order, kept for every field */
	const char *clock;	/* the trace clock's name ("local", "mono" ...) */
	const char *source;	/* the trace.dat file, for env */
	const char *hostname;	/* for env, or NULL */
};

/*
 * trev_ctf_metadata() - the TSDL text of a trace with @nr_events events
 * Return: 0, or the error @out kept (-ENOMEM).
 */
int trev_ctf_metadata(struct trev_buf *out, const struct trev_ctf_trace *t,
		      const struct trev_ctf_event *const *events, unsigned int nr_events);

/*
 * One stream (a CPU's): the packet being built. A packet is closed when it
 * is big, before a record that follows lost events (so that the next
 * packet's events_discarded counts them), and at the end.
 */
struct trev_ctf_stream {
	struct trev_buf pkt;	/* the packet: header, context, events */
	bool big_endian;
	bool open;		/* @pkt is a packet being built */
	bool any;		/* a packet was started on this stream */
	unsigned int cpu;
	uint64_t discarded;	/* events lost so far on this CPU (cumulative, as CTF keeps it) */
	uint64_t ts_last;	/* the last record's time stamp */
	size_t packet_max;	/* a packet is closed once it holds this many bytes */
};

/* The default packet size, and the smallest (`trev convert --packet-size`). */
#define TREV_CTF_PACKET_SIZE	(1u << 20)
#define TREV_CTF_PACKET_MIN	4096u

void trev_ctf_stream_init(struct trev_ctf_stream *s, unsigned int cpu, bool big_endian,
			  size_t packet_max);
void trev_ctf_stream_free(struct trev_ctf_stream *s);

/*
 * trev_ctf_stream_event() - append one record to the packet being built
 * (starting one when none is)
 * @ev: its event; @rec, @size: its bytes (common fields first)
 * @ts: its time stamp (ns); @text: for @ev->text, else NULL
 * @why, @why_size: on -EINVAL, which field is outside the record and how
 *
 * Before it, the caller writes out what trev_ctf_stream_full() or
 * trev_ctf_stream_lost() closed.
 * Return: 0, -EINVAL (the record does not hold its fields), -ERANGE (time
 * went back on this stream) or -ENOMEM; on error nothing was appended.
 */
int trev_ctf_stream_event(struct trev_ctf_stream *s, const struct trev_ctf_event *ev,
			  const uint8_t *rec, size_t size, uint64_t ts, const char *text,
			  char *why, size_t why_size);

/*
 * trev_ctf_stream_event_strs() - trev_ctf_stream_event(), with @strs[i]
 * the companion string of field i (those with a companion; NULL or a NULL
 * entry: ""), @strs NULL for none
 */
int trev_ctf_stream_event_strs(struct trev_ctf_stream *s, const struct trev_ctf_event *ev,
			       const uint8_t *rec, size_t size, uint64_t ts, const char *text,
			       const char *const *strs, char *why, size_t why_size);

/*
 * trev_ctf_stream_close() - close the packet being built: its end time (its
 * last record's) and sizes
 * Return: the packet's bytes, to be written out before the next call on
 * @s; NULL when no packet was being built.
 */
const struct trev_buf *trev_ctf_stream_close(struct trev_ctf_stream *s);

/* The packet being built is big: trev_ctf_stream_close() it before the next record. */
bool trev_ctf_stream_full(const struct trev_ctf_stream *s);

/*
 * trev_ctf_stream_lost() - @n events were lost before the next record, at @ts
 *
 * CTF counts them in the next packet's events_discarded, so this closes the
 * packet being built; on a stream with no packet yet it makes an empty one
 * at @ts (a reader counts discarded events between two packets).
 * Return: the closed packet, to be written out, or NULL.
 */
const struct trev_buf *trev_ctf_stream_lost(struct trev_ctf_stream *s, uint64_t n, uint64_t ts);

#endif /* TREV_TOOLS_CTF_H */
