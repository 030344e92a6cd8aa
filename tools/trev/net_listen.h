/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trev record -N HOST:PORT: the client side of trace-cmd listen's network
 * protocol (version 3, over TCP), so that a running `trace-cmd listen`
 * writes a recording as trace.HOST:PORT.dat, the file trace-cmd report and
 * KernelShark open (docs/streaming.md).
 *
 * One connection carries one trace.dat: a control connection for the
 * metadata and a TCP connection per CPU for its raw pages, which the
 * listener puts behind the metadata when the connection closes. trev record
 * opens one per recorded process; everything a listener sends is checked
 * and every wait for it is bounded.
 *
 * Context: one thread calls trev_net_*() for a connection; a thread of the
 * connection's own keeps the listener's metadata transfer open meanwhile.
 */
#ifndef TREV_TOOLS_NET_LISTEN_H
#define TREV_TOOLS_NET_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trev_net;

/* The padding the metadata can carry: one byte a second keeps a transfer open (18 h). */
#define TREV_NET_PAD		65536u
#define TREV_NET_KEEPALIVE_MS	1000

/*
 * trev_net_open() - connect to the listener at @where ("HOST:PORT",
 * "[IPV6]:PORT" or "PORT" on localhost), agree on version 3, ask for
 * @nr_cpus data connections over TCP and make them, and start the
 * metadata with @head: a version 6 trace.dat's beginning as far as its
 * options' end (only its file header and header_page are sent now; the
 * rest comes with trev_net_finish()). @timeout_ms bounds each wait for
 * the listener.
 * Return: the connection, or NULL with @err saying why.
 */
struct trev_net *trev_net_open(const char *where, int nr_cpus, const void *head, size_t head_len,
			       int timeout_ms, char *err, size_t err_size);

/*
 * trev_net_port() - our end's port, which names the listener's file:
 * trace.HOST:PORT.dat (HOST: our address as the listener's resolver names it).
 */
unsigned int trev_net_port(const struct trev_net *n);

/*
 * trev_net_send_page() - send one page (4096 bytes) of @cpu's stream: it
 * goes with the next ones of the CPU, 16 pages a send(), or at the next
 * trev_net_flush(). Waits while the listener does not take them, at most
 * the time-out. Return: 0, or a negative errno with trev_net_error()
 * saying why (the connection is then broken: every later call fails the
 * same way).
 * trev_net_flush() - send the pages that wait; the same return.
 */
int trev_net_send_page(struct trev_net *n, int cpu, const void *page, size_t size);
int trev_net_flush(struct trev_net *n);

/*
 * trev_net_finish() - end the data streams, wait until the listener has
 * read them, send the rest of the metadata (@head: the version 6
 * metadata as the recording ended, whose file header and header_page must
 * be those trev_net_open() sent) and close; waits for the listener to
 * write its file (it closes the connection then). Frees @n; @bytes (or
 * NULL) gets what was sent in all.
 * Return: 0, or a negative errno with @err saying why.
 */
int trev_net_finish(struct trev_net *n, const void *head, size_t head_len, uint64_t *bytes,
		    char *err, size_t err_size);

/* trev_net_abort() - close without finishing: the listener writes no usable file. Frees @n. */
void trev_net_abort(struct trev_net *n);

/*
 * trev_net_broken() - whether the connection broke (the listener went away
 * or ended the transfer), seen by the keeper thread between pages.
 * trev_net_error() - why, "" while it is not broken (read it once broken).
 */
bool trev_net_broken(struct trev_net *n);
const char *trev_net_error(const struct trev_net *n);

/* The bytes sent so far: metadata, messages' headers and pages. */
uint64_t trev_net_bytes(const struct trev_net *n);

/*
 * The protocol's steps on a connected @fd, for trev_net_open() and the
 * fuzzer (tests/fuzz/fuzz_net_listen.c). Each returns 0 or a negative errno
 * with @err saying what the listener sent.
 *
 * trev_net_hello() - the greeting: "tracecmd", then version 3 asked and
 * agreed ("-1V3", "V3", the magic, "OK").
 * trev_net_init() - TINIT for @nr_cpus CPUs of 4096-byte pages over TCP;
 * the RINIT reply's port per CPU into @ports.
 * trev_net_parse_rinit() - a RINIT message (@msg, @len: header included)
 * into @ports.
 */
int trev_net_hello(int fd, int timeout_ms, char *err, size_t err_size);
int trev_net_init(int fd, int nr_cpus, int timeout_ms, uint16_t *ports, char *err,
		  size_t err_size);
int trev_net_parse_rinit(const uint8_t *msg, size_t len, int nr_cpus, uint16_t *ports, char *err,
			 size_t err_size);

/*
 * trev_net_split_head() - where the metadata @head may be padded: the end
 * of its header_page text, and the offset of header_page's size field.
 * Return: 0, or -EINVAL if @head is not a version 6 metadata beginning.
 */
int trev_net_split_head(const uint8_t *head, size_t len, size_t *size_at, size_t *text_end);

#endif /* TREV_TOOLS_NET_LISTEN_H */
