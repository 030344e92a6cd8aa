/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client side of trace-cmd listen's protocol, version 3 (net_listen.h;
 * docs/streaming.md has the protocol as trev speaks it and why). The facts
 * come from trace-cmd's documentation and sources (trace-listen.c,
 * trace-msg.c); the code is ours.
 *
 * A message: u32 size (all of it), u32 command, u32 command-part size, all
 * big-endian, then the command part, then data; at most 8192 bytes.
 *
 * The metadata goes last. The listener ends a metadata transfer after 5 s
 * without a message, and takes only data messages as part of it, so
 * trev_net_open() sends the file header and header_page with a text
 * TREV_NET_PAD bytes longer than it is, and a thread sends one of those
 * bytes (a newline, which the text's readers skip) each second; at the end
 * the rest of the padding and the rest of the metadata go, with every
 * thread name and symbol of the run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net_listen.h"

#define NL_MSG_MAX	8192u		/* the largest message either side takes */
#define NL_HDR		12u		/* size, command, command-part size */
#define NL_PAGE		4096u
#define NL_MAX_CPUS	4096
#define NL_RETRY_US	5000		/* a data port that does not listen yet: try again */
#define NL_BATCH	16		/* pages of a CPU sent in one send() */

/* The commands (trace-cmd's MSG_*). */
enum {
	NL_CLOSE = 0,
	NL_TINIT = 1,
	NL_RINIT = 2,
	NL_SEND_DATA = 3,
	NL_FIN_DATA = 4,
	NL_NOT_SUPP = 5,
};

/* The greeting's strings, NULs included as the protocol sends them. */
static const char nl_server_hello[8] = "tracecmd";
static const char nl_v3_ask[5] = "-1V3";
static const char nl_v3_yes[3] = "V3";
static const char nl_v3_magic[8] = "766679\0";
static const char nl_ok[2] = "OK";

struct trev_net {
	int ctl;			/* the control connection: greeting, metadata */
	int *data;			/* [nr_cpus]: a page stream each */
	uint8_t *batch;			/* [nr_cpus][NL_BATCH pages]: what waits to be sent */
	unsigned int *fill;		/* [nr_cpus]: pages in its batch */
	int nr_cpus;
	int timeout_ms;
	unsigned int port;		/* our end's of ctl */

	uint8_t *sent;			/* the metadata sent at open: file header, header_page */
	size_t sent_len;		/* through the end of header_page's text */

	pthread_t keeper;		/* sends the padding, watches ctl */
	bool keeper_running;
	pthread_mutex_t lock;		/* ctl, pad_left, err, stop */
	pthread_cond_t cond;
	bool stop;
	uint32_t pad_left;		/* padding bytes not sent yet */

	char err[256];			/* why the connection broke, "" */
	int err_no;
	uint64_t bytes;
};

static void nl_say(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void nl_say(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!err || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

static int64_t nl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (ms). Return: 1 ready, 0 time out, -errno. */
static int nl_wait(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		int64_t left = deadline - nl_now_ms();
		int ret;

		if (left < 0)
			left = 0;
		ret = poll(&pfd, 1, (int)(left > 60000 ? 60000 : left));
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (ret > 0)
			return 1;
		if (nl_now_ms() >= deadline)
			return 0;
	}
}

/* Send all of @buf on the non-blocking @fd by @deadline. Return: 0 or -errno. */
static int nl_send_all(int fd, const void *buf, size_t len, int64_t deadline)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		n = nl_wait(fd, POLLOUT, deadline);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ETIMEDOUT;
	}
	return 0;
}

/*
 * Read exactly @len bytes from the non-blocking @fd by @deadline.
 * Return: 0, -ECONNRESET if the peer closed first, -ETIMEDOUT or -errno.
 */
static int nl_recv_all(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		n = nl_wait(fd, POLLIN, deadline);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ETIMEDOUT;
	}
	return 0;
}

static const char *nl_why(int err)
{
	if (err == -ECONNRESET)
		return "it closed the connection";
	if (err == -ETIMEDOUT)
		return "no answer in time";
	return strerror(-err);
}

static void nl_put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t nl_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* Send one message: @cmd with @part (its command part) and @data. */
static int nl_send_msg(int fd, uint32_t cmd, const void *part, uint32_t part_len,
		       const void *data, size_t data_len, int64_t deadline, uint64_t *bytes)
{
	uint8_t msg[NL_MSG_MAX];
	size_t len = NL_HDR + part_len + data_len;
	int ret;

	if (len > NL_MSG_MAX)
		return -EMSGSIZE;
	nl_put32(msg, (uint32_t)len);
	nl_put32(msg + 4, cmd);
	nl_put32(msg + 8, part_len);
	if (part_len)
		memcpy(msg + NL_HDR, part, part_len);
	if (data_len)
		memcpy(msg + NL_HDR + part_len, data, data_len);
	ret = nl_send_all(fd, msg, len, deadline);
	if (!ret && bytes)
		*bytes += len;
	return ret;
}

/* @len bytes of metadata as data messages. */
static int nl_send_data(int fd, const uint8_t *data, size_t len, int64_t deadline,
			uint64_t *bytes)
{
	const size_t most = NL_MSG_MAX - NL_HDR;

	while (len) {
		size_t n = len < most ? len : most;
		int ret = nl_send_msg(fd, NL_SEND_DATA, NULL, 0, data, n, deadline, bytes);

		if (ret)
			return ret;
		data += n;
		len -= n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The protocol's steps                                                 */

int trev_net_hello(int fd, int timeout_ms, char *err, size_t err_size)
{
	int64_t deadline = nl_now_ms() + timeout_ms;
	char buf[8];
	int ret;

	ret = nl_recv_all(fd, buf, sizeof(nl_server_hello), deadline);
	if (ret) {
		nl_say(err, err_size, "waiting for the listener's greeting: %s", nl_why(ret));
		return ret;
	}
	if (memcmp(buf, nl_server_hello, sizeof(nl_server_hello))) {
		nl_say(err, err_size, "the peer is not trace-cmd listen: it did not greet with "
		       "\"tracecmd\"");
		return -EPROTO;
	}
	ret = nl_send_all(fd, nl_v3_ask, sizeof(nl_v3_ask), deadline);
	if (ret) {
		nl_say(err, err_size, "asking for protocol version 3: %s", nl_why(ret));
		return ret;
	}
	/* A listener of version 1 only answers with a NUL (trace-cmd's own client looks). */
	ret = nl_recv_all(fd, buf, 1, deadline);
	if (!ret && buf[0] == '\0') {
		nl_say(err, err_size, "the listener speaks only protocol version 1 (trace-cmd "
		       "before 2.8), which trev does not");
		return -EPROTO;
	}
	if (!ret)
		ret = nl_recv_all(fd, buf + 1, sizeof(nl_v3_yes) - 1, deadline);
	if (ret) {
		nl_say(err, err_size, "asking for protocol version 3: %s", nl_why(ret));
		return ret;
	}
	if (memcmp(buf, nl_v3_yes, sizeof(nl_v3_yes))) {
		nl_say(err, err_size, "the listener does not speak protocol version 3 (it "
		       "answered %02x %02x %02x)", (unsigned char)buf[0], (unsigned char)buf[1],
		       (unsigned char)buf[2]);
		return -EPROTO;
	}
	ret = nl_send_all(fd, nl_v3_magic, sizeof(nl_v3_magic), deadline);
	if (!ret)
		ret = nl_recv_all(fd, buf, sizeof(nl_ok), deadline);
	if (ret) {
		nl_say(err, err_size, "agreeing on protocol version 3: %s", nl_why(ret));
		return ret;
	}
	if (memcmp(buf, nl_ok, sizeof(nl_ok))) {
		nl_say(err, err_size, "the listener did not accept protocol version 3 (no \"OK\")");
		return -EPROTO;
	}
	return 0;
}

int trev_net_parse_rinit(const uint8_t *msg, size_t len, int nr_cpus, uint16_t *ports, char *err,
			 size_t err_size)
{
	uint32_t size, cmd, part;
	const char *p, *end;

	if (len < NL_HDR) {
		nl_say(err, err_size, "the listener's reply is %zu bytes, shorter than a message "
		       "header", len);
		return -EPROTO;
	}
	size = nl_get32(msg);
	cmd = nl_get32(msg + 4);
	part = nl_get32(msg + 8);
	if (size != len || part > size - NL_HDR) {
		nl_say(err, err_size, "the listener's reply has sizes that do not add up "
		       "(%" PRIu32 " bytes, command part %" PRIu32 ", %zu read)", size, part, len);
		return -EPROTO;
	}
	if (cmd == NL_CLOSE || cmd == NL_NOT_SUPP) {
		nl_say(err, err_size, "the listener refused the recording (%s)",
		       cmd == NL_CLOSE ? "CLOSE" : "NOT_SUPP");
		return -ECONNREFUSED;
	}
	if (cmd != NL_RINIT || part < 4) {
		nl_say(err, err_size, "the listener answered with message %" PRIu32 " (part %"
		       PRIu32 " bytes), not the port list (RINIT)", cmd, part);
		return -EPROTO;
	}
	if (nl_get32(msg + NL_HDR) != (uint32_t)nr_cpus) {
		nl_say(err, err_size, "the listener gave ports for %" PRIu32 " CPUs; %d were asked "
		       "for", nl_get32(msg + NL_HDR), nr_cpus);
		return -EPROTO;
	}
	p = (const char *)msg + NL_HDR + part;
	end = (const char *)msg + size;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		unsigned long v = 0;
		const char *q = p;

		while (q < end && *q >= '0' && *q <= '9' && v <= 65535)
			v = v * 10 + (unsigned long)(*q++ - '0');
		if (q == p || q >= end || *q != '\0' || v == 0 || v > 65535) {
			nl_say(err, err_size, "the listener's port for CPU %d is not a port number "
			       "(byte %td of its list)", cpu,
			       p - ((const char *)msg + NL_HDR + part));
			return -EPROTO;
		}
		ports[cpu] = (uint16_t)v;
		p = q + 1;
	}
	if (p != end) {
		nl_say(err, err_size, "the listener's port list has %td bytes after the %d ports",
		       end - p, nr_cpus);
		return -EPROTO;
	}
	return 0;
}

int trev_net_init(int fd, int nr_cpus, int timeout_ms, uint16_t *ports, char *err,
		  size_t err_size)
{
	int64_t deadline = nl_now_ms() + timeout_ms;
	static const char tcp[] = "tcp";	/* the data over TCP, never UDP */
	uint8_t part[12], msg[NL_MSG_MAX];
	uint32_t size;
	int ret;

	if (nr_cpus <= 0 || nr_cpus > NL_MAX_CPUS)
		return -EINVAL;
	nl_put32(part, (uint32_t)nr_cpus);
	nl_put32(part + 4, NL_PAGE);
	nl_put32(part + 8, 1);
	ret = nl_send_msg(fd, NL_TINIT, part, sizeof(part), tcp, sizeof(tcp), deadline, NULL);
	if (ret) {
		nl_say(err, err_size, "sending the CPU count: %s", nl_why(ret));
		return ret;
	}
	ret = nl_recv_all(fd, msg, NL_HDR, deadline);
	if (ret) {
		nl_say(err, err_size, "waiting for the listener's ports: %s", nl_why(ret));
		return ret;
	}
	size = nl_get32(msg);
	if (size < NL_HDR || size > NL_MSG_MAX) {
		nl_say(err, err_size, "the listener's reply claims %" PRIu32 " bytes (a message "
		       "is %u to %u)", size, NL_HDR, NL_MSG_MAX);
		return -EPROTO;
	}
	ret = nl_recv_all(fd, msg + NL_HDR, size - NL_HDR, deadline);
	if (ret) {
		nl_say(err, err_size, "reading the listener's ports: %s", nl_why(ret));
		return ret;
	}
	return trev_net_parse_rinit(msg, size, nr_cpus, ports, err, err_size);
}

int trev_net_split_head(const uint8_t *head, size_t len, size_t *size_at, size_t *text_end)
{
	static const uint8_t magic[10] = "\x17\x08\x44tracing";
	const size_t hp_at = 10 + 2 + 1 + 1 + 4;	/* magic, "6", endian, long size, page */
	uint64_t text;

	if (len < hp_at + 12 + 8 || memcmp(head, magic, sizeof(magic)) ||
	    memcmp(head + 10, "6", 2) || memcmp(head + hp_at, "header_page", 12))
		return -EINVAL;
	memcpy(&text, head + hp_at + 12, 8);	/* the file's own byte order: ours */
	if (text > len - (hp_at + 20))
		return -EINVAL;
	*size_at = hp_at + 12;
	*text_end = hp_at + 20 + (size_t)text;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The connection                                                       */

static void nl_break(struct trev_net *n, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record why @n broke (the first reason stays). Context: with n->lock held. */
static void nl_break(struct trev_net *n, int err, const char *fmt, ...)
{
	va_list ap;

	if (n->err_no)
		return;
	n->err_no = err;
	va_start(ap, fmt);
	vsnprintf(n->err, sizeof(n->err), fmt, ap);
	va_end(ap);
}

/*
 * The keeper: a padding byte each second while the recording goes on, so
 * that the listener's wait for metadata never runs out; anything the
 * listener sends meanwhile ends it (it answers nothing in this phase but
 * NOT_SUPP to a message it did not expect, or it hung up).
 */
static void *nl_keeper(void *arg)
{
	struct trev_net *n = arg;
	static const uint8_t nl = '\n';

	pthread_mutex_lock(&n->lock);
	while (!n->stop && !n->err_no) {
		struct pollfd pfd = { .fd = n->ctl, .events = POLLIN };
		struct timespec until;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += TREV_NET_KEEPALIVE_MS / 1000;
		until.tv_nsec += (TREV_NET_KEEPALIVE_MS % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!n->stop && pthread_cond_timedwait(&n->cond, &n->lock, &until) == 0)
			;
		if (n->stop)
			break;
		if (poll(&pfd, 1, 0) > 0) {
			nl_break(n, -ECONNRESET, "the listener ended the transfer (it hung up, or "
				 "sent a message where it takes none)");
			break;
		}
		if (!n->pad_left) {
			nl_break(n, -ETIME, "the recording ran longer than the listener's metadata "
				 "transfer can be kept open (%u s)", TREV_NET_PAD);
			break;
		}
		ret = nl_send_data(n->ctl, &nl, 1, nl_now_ms() + n->timeout_ms, &n->bytes);
		if (ret) {
			nl_break(n, ret, "sending to the listener: %s", nl_why(ret));
			break;
		}
		n->pad_left--;
	}
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

static void nl_stop_keeper(struct trev_net *n)
{
	if (!n->keeper_running)
		return;
	pthread_mutex_lock(&n->lock);
	n->stop = true;
	pthread_cond_signal(&n->cond);
	pthread_mutex_unlock(&n->lock);
	pthread_join(n->keeper, NULL);
	n->keeper_running = false;
}

static void nl_free(struct trev_net *n)
{
	nl_stop_keeper(n);
	if (n->ctl >= 0)
		close(n->ctl);
	for (int cpu = 0; n->data && cpu < n->nr_cpus; cpu++)
		if (n->data[cpu] >= 0)
			close(n->data[cpu]);
	free(n->data);
	free(n->batch);
	free(n->fill);
	free(n->sent);
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

/* Split "HOST:PORT", "[ADDR]:PORT" or "PORT" (localhost). Return: 0 or -EINVAL. */
static int nl_parse_where(const char *where, char *host, size_t hsize, char *port, size_t psize)
{
	const char *p = where, *colon;
	size_t hlen = 0;

	if (where[0] == '[') {
		const char *close = strchr(where, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		hlen = (size_t)(close - where - 1);
		where++;
		p = close + 2;
	} else if ((colon = strrchr(where, ':'))) {
		hlen = (size_t)(colon - where);
		p = colon + 1;
	}
	if (hlen >= hsize || !*p || strlen(p) >= psize || strspn(p, "0123456789") != strlen(p))
		return -EINVAL;
	if (hlen)
		memcpy(host, where, hlen);
	else
		hlen = (size_t)snprintf(host, hsize, "localhost");
	host[hlen] = '\0';
	strcpy(port, p);
	return atoi(port) > 0 && atoi(port) <= 65535 ? 0 : -EINVAL;
}

/* A non-blocking TCP connection to @addr within the time-out. Return: fd or -errno. */
static int nl_connect(const struct sockaddr *addr, socklen_t len, int64_t deadline)
{
	int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int ret, one = 1;
	socklen_t sl = sizeof(ret);

	if (fd < 0)
		return -errno;
	if (connect(fd, addr, len) < 0 && errno != EINPROGRESS) {
		ret = -errno;
		goto out_close;
	}
	ret = nl_wait(fd, POLLOUT, deadline);
	if (ret <= 0) {
		ret = ret ? ret : -ETIMEDOUT;
		goto out_close;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &ret, &sl) < 0 || ret) {
		ret = ret ? -ret : -errno;
		goto out_close;
	}
	if (addr->sa_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;

out_close:
	close(fd);
	return ret;
}

struct trev_net *trev_net_open(const char *where, int nr_cpus, const void *head, size_t head_len,
			       int timeout_ms, char *err, size_t err_size)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	char host[256], port[16], why[256];
	struct addrinfo *ai = NULL, *a;
	struct sockaddr_storage peer, self;
	socklen_t peer_len = sizeof(peer), self_len = sizeof(self);
	uint16_t *ports = NULL;
	size_t size_at, text_end;
	struct trev_net *n;
	int64_t deadline;
	uint64_t padded;
	int ret;

	if (nl_parse_where(where, host, sizeof(host), port, sizeof(port))) {
		nl_say(err, err_size, "'%s': not HOST:PORT", where);
		return NULL;
	}
	if (nr_cpus <= 0 || nr_cpus > NL_MAX_CPUS ||
	    trev_net_split_head(head, head_len, &size_at, &text_end)) {
		nl_say(err, err_size, "nothing to send (no CPUs or no metadata)");
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		goto out_nomem;
	n->ctl = -1;
	n->nr_cpus = nr_cpus;
	n->timeout_ms = timeout_ms;
	n->pad_left = TREV_NET_PAD;
	pthread_mutex_init(&n->lock, NULL);
	pthread_cond_init(&n->cond, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_destroy(&n->cond);
		pthread_cond_init(&n->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	n->data = malloc((size_t)nr_cpus * sizeof(*n->data));
	n->batch = malloc((size_t)nr_cpus * NL_BATCH * NL_PAGE);
	n->fill = calloc((size_t)nr_cpus, sizeof(*n->fill));
	ports = calloc((size_t)nr_cpus, sizeof(*ports));
	n->sent = malloc(text_end);
	if (!n->data || !n->batch || !n->fill || !ports || !n->sent)
		goto out_nomem;
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		n->data[cpu] = -1;

	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret) {
		nl_say(err, err_size, "%s: %s", host, gai_strerror(ret));
		goto out_free;
	}
	deadline = nl_now_ms() + timeout_ms;
	ret = -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		ret = nl_connect(a->ai_addr, a->ai_addrlen, deadline);
		if (ret >= 0)
			break;
	}
	freeaddrinfo(ai);
	if (ret < 0) {
		nl_say(err, err_size, "connecting to %s:%s: %s", host, port, nl_why(ret));
		goto out_free;
	}
	n->ctl = ret;
	if (getpeername(n->ctl, (struct sockaddr *)&peer, &peer_len) ||
	    getsockname(n->ctl, (struct sockaddr *)&self, &self_len)) {
		nl_say(err, err_size, "connecting to %s:%s: %s", host, port, strerror(errno));
		goto out_free;
	}
	n->port = ntohs(self.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&self)->sin6_port
						    : ((struct sockaddr_in *)&self)->sin_port);

	if (trev_net_hello(n->ctl, timeout_ms, why, sizeof(why)) ||
	    trev_net_init(n->ctl, nr_cpus, timeout_ms, ports, why, sizeof(why))) {
		nl_say(err, err_size, "%s:%s: %s", host, port, why);
		goto out_free;
	}
	deadline = nl_now_ms() + timeout_ms;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		struct sockaddr_storage to = peer;

		if (to.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&to)->sin6_port = htons(ports[cpu]);
		else
			((struct sockaddr_in *)&to)->sin_port = htons(ports[cpu]);
		/*
		 * The listener binds the port, sends it, and only then does the
		 * process it forked for the CPU listen on it: until then a
		 * connection is refused.
		 */
		while ((ret = nl_connect((struct sockaddr *)&to, peer_len, deadline)) ==
			       -ECONNREFUSED && nl_now_ms() < deadline)
			usleep(NL_RETRY_US);
		if (ret < 0) {
			nl_say(err, err_size, "%s:%s: connecting to port %u for CPU %d: %s", host,
			       port, ports[cpu], cpu, nl_why(ret));
			goto out_free;
		}
		n->data[cpu] = ret;
	}

	/* The file header and header_page, its text as long as the padding makes it. */
	memcpy(n->sent, head, text_end);
	n->sent_len = text_end;
	memcpy(&padded, n->sent + size_at, 8);
	padded += TREV_NET_PAD;
	memcpy(n->sent + size_at, &padded, 8);
	ret = nl_send_data(n->ctl, n->sent, text_end, nl_now_ms() + timeout_ms, &n->bytes);
	if (ret) {
		nl_say(err, err_size, "%s:%s: sending the metadata: %s", host, port, nl_why(ret));
		goto out_free;
	}
	if (pthread_create(&n->keeper, NULL, nl_keeper, n)) {
		nl_say(err, err_size, "cannot start a thread: %s", strerror(errno));
		goto out_free;
	}
	n->keeper_running = true;
	free(ports);
	return n;

out_nomem:
	nl_say(err, err_size, "%s", strerror(ENOMEM));
out_free:
	free(ports);
	if (n)
		nl_free(n);
	return NULL;
}

unsigned int trev_net_port(const struct trev_net *n)
{
	return n->port;
}

const char *trev_net_error(const struct trev_net *n)
{
	return n->err;
}

bool trev_net_broken(struct trev_net *n)
{
	bool broken;

	pthread_mutex_lock(&n->lock);
	broken = n->err_no != 0;
	pthread_mutex_unlock(&n->lock);
	return broken;
}

uint64_t trev_net_bytes(const struct trev_net *n)
{
	return n->bytes;
}

/* Send what waits in @cpu's batch. */
static int nl_flush_cpu(struct trev_net *n, int cpu)
{
	size_t len = (size_t)n->fill[cpu] * NL_PAGE;
	int ret;

	if (!len)
		return 0;
	ret = nl_send_all(n->data[cpu], n->batch + (size_t)cpu * NL_BATCH * NL_PAGE, len,
			  nl_now_ms() + n->timeout_ms);
	pthread_mutex_lock(&n->lock);
	if (ret)
		nl_break(n, ret, "sending CPU %d's pages: %s", cpu,
			 ret == -ETIMEDOUT ? "the listener took none in time" : nl_why(ret));
	else
		n->bytes += len;
	ret = n->err_no;
	pthread_mutex_unlock(&n->lock);
	n->fill[cpu] = 0;
	return ret;
}

int trev_net_send_page(struct trev_net *n, int cpu, const void *page, size_t size)
{
	int ret;

	if (cpu < 0 || cpu >= n->nr_cpus || size != NL_PAGE)
		return -EINVAL;
	pthread_mutex_lock(&n->lock);
	ret = n->err_no;
	pthread_mutex_unlock(&n->lock);
	if (ret)
		return ret;
	memcpy(n->batch + ((size_t)cpu * NL_BATCH + n->fill[cpu]) * NL_PAGE, page, NL_PAGE);
	if (++n->fill[cpu] < NL_BATCH)
		return 0;
	return nl_flush_cpu(n, cpu);
}

int trev_net_flush(struct trev_net *n)
{
	int ret = 0;

	for (int cpu = 0; cpu < n->nr_cpus && !ret; cpu++)
		ret = nl_flush_cpu(n, cpu);
	return ret;
}

/*
 * End @fd's stream and wait until the listener's reader of it has read
 * all and hung up (it does at the stream's end): then its pages are in
 * the listener's file, before the metadata's end lets it put the file
 * together.
 */
static int nl_end_stream(int fd, int64_t deadline)
{
	char sink[256];

	if (shutdown(fd, SHUT_WR) < 0)
		return -errno;
	for (;;) {
		ssize_t r = recv(fd, sink, sizeof(sink), 0);
		int ret;

		if (r == 0)
			return 0;
		if (r > 0)
			continue;	/* a reader sends nothing; whatever it is goes */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == ECONNRESET ? 0 : -errno;
		ret = nl_wait(fd, POLLIN, deadline);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -ETIMEDOUT;
	}
}

int trev_net_finish(struct trev_net *n, const void *head, size_t head_len, uint64_t *bytes,
		    char *err, size_t err_size)
{
	static const uint8_t pad[4096] = { [0 ... 4095] = '\n' };
	const uint8_t *h = head;
	size_t size_at, text_end;
	uint64_t text_len, sent_len;
	int64_t deadline;
	int ret;

	trev_net_flush(n);
	nl_stop_keeper(n);
	if (n->err_no) {
		nl_say(err, err_size, "%s", n->err);
		ret = n->err_no;
		goto out;
	}
	ret = -EINVAL;
	if (trev_net_split_head(h, head_len, &size_at, &text_end) || text_end != n->sent_len ||
	    memcmp(h, n->sent, size_at) || memcmp(h + size_at + 8, n->sent + size_at + 8,
						   text_end - size_at - 8)) {
		nl_say(err, err_size, "the metadata's beginning changed during the recording");
		goto out;
	}
	memcpy(&text_len, h + size_at, 8);
	memcpy(&sent_len, n->sent + size_at, 8);
	if (sent_len != text_len + TREV_NET_PAD) {
		nl_say(err, err_size, "the metadata's beginning changed during the recording");
		goto out;
	}
	deadline = nl_now_ms() + n->timeout_ms;
	ret = 0;
	for (uint32_t left = n->pad_left; left && !ret;) {
		uint32_t k = left < sizeof(pad) ? left : (uint32_t)sizeof(pad);

		ret = nl_send_data(n->ctl, pad, k, deadline, &n->bytes);
		left -= k;
	}
	if (!ret)
		ret = nl_send_data(n->ctl, h + text_end, head_len - text_end, deadline, &n->bytes);
	if (!ret)
		ret = nl_send_msg(n->ctl, NL_FIN_DATA, NULL, 0, NULL, 0, deadline, &n->bytes);
	if (ret) {
		nl_say(err, err_size, "sending the metadata: %s", nl_why(ret));
		goto out;
	}
	/*
	 * Only now the streams end: a reader that ends interrupts the
	 * listener's wait for metadata (SIGCHLD), which would cut it short;
	 * its wait for CLOSE goes on. CLOSE once every reader has read all.
	 * A generous bound: a reader may have a socket buffer of pages to write.
	 */
	deadline = nl_now_ms() + n->timeout_ms + 30000;
	for (int cpu = 0; cpu < n->nr_cpus; cpu++) {
		ret = nl_end_stream(n->data[cpu], deadline);
		if (ret) {
			nl_say(err, err_size, "ending CPU %d's stream: %s", cpu, nl_why(ret));
			goto out;
		}
	}
	ret = nl_send_msg(n->ctl, NL_CLOSE, NULL, 0, NULL, 0, nl_now_ms() + n->timeout_ms,
			  &n->bytes);
	if (ret) {
		nl_say(err, err_size, "closing: %s", nl_why(ret));
		goto out;
	}
	/*
	 * The listener puts the file together, then its process for us
	 * ends and the connection closes (trace-cmd 3.1 waits 2 s first).
	 */
	ret = nl_end_stream(n->ctl, nl_now_ms() + n->timeout_ms + 30000);
	if (ret)
		nl_say(err, err_size, "waiting for the listener to write its file: %s",
		       nl_why(ret));
out:
	if (bytes)
		*bytes = n->bytes;
	nl_free(n);
	return ret;
}

void trev_net_abort(struct trev_net *n)
{
	if (n)
		nl_free(n);
}
