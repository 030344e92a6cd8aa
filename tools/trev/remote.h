/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client side of the control socket (src/control/proto.h): a running
 * process's tree, reached by pid, with the operations of the C API. The
 * socket is trusted only after its directory, its file and its listener
 * are checked (remote_find.c); every reply is checked against its request
 * (remote.c): a malformed one is reported once, the call returns -EPROTO
 * and so does every later call on that connection.
 */
#ifndef TREV_TOOLS_REMOTE_H
#define TREV_TOOLS_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trev_remote;

/*
 * How long a reply may take, by default, beyond the request's own wait (a
 * READ's or POLL's time-out): then the call fails with -ETIMEDOUT after
 * "process N did not answer OP within S s", and so does every later call
 * on that connection.
 */
#define TREV_REMOTE_TIMEOUT_MS	30000

/*
 * trev_remote_set_timeout() - the time-out of every later request and
 * connect, in ms (0: wait for ever). Context: not thread-safe.
 */
void trev_remote_set_timeout(int ms);
/* The time-out in ms, 0 for none. */
int trev_remote_timeout(void);

/* The most trev_remote_read_file() takes from one file (then -EFBIG). */
#define TREV_REMOTE_MAX_FILE	(64u << 20)

/*
 * trev_remote_connect() - attach to process @pid's tree
 *
 * The socket is looked for where the process put it, through
 * /proc/PID/root (so a process in another mount namespace is reached),
 * and nothing is sent before the directory (owned by the process's uid,
 * not writable by group or others), the socket (a socket, owned by that
 * uid) and the listener (SO_PEERCRED: process @pid itself) are checked.
 * Return: 0 and *@out, or a negative errno: -ESRCH (no such process),
 * -EPERM (not ours, or a socket that is not the process's), -ENOENT (no
 * trev socket in that process), -ENOTSUP (its socket is disabled:
 * TREV_SOCKET=0), -EPROTO (it speaks another protocol, or a
 * malformed HELLO), -ETIMEDOUT (it did not accept the connection or
 * answer HELLO within trev_remote_timeout()). @why receives a sentence
 * for the user.
 */
int trev_remote_connect(pid_t pid, struct trev_remote **out, char *why, size_t why_size);
/*
 * trev_remote_from_fd() - the handshake (HELLO) on @fd, a socket already
 * connected to process @pid's server (trev_remote_connect(), or a test's
 * socketpair); @fd is the connection's from now on, closed on failure.
 * Return: 0 and *@out, or a negative errno, with @why as above.
 */
int trev_remote_from_fd(int fd, pid_t pid, struct trev_remote **out, char *why, size_t why_size);
void trev_remote_close(struct trev_remote *r);
/* The process's banner, "trev X.Y.Z pid N" (its library's version). */
const char *trev_remote_banner(const struct trev_remote *r);

/* Open flags: TREV_PO_* of proto.h. Return: a handle > 0 or a negative errno. */
int trev_remote_open(struct trev_remote *r, const char *path, unsigned int po);
/* Read up to @size bytes; @timeout_ms -1 waits, 0 never. Return: bytes, 0 at the end, -errno. */
ssize_t trev_remote_read(struct trev_remote *r, int h, void *buf, size_t size, int timeout_ms);
/*
 * The same with TREV_PR_* flags of proto.h (TREV_PR_FULL: full pages of
 * trace_pipe_raw only; @timeout_ms must then be 0). A process that speaks
 * protocol 2 knows no flags: it gets none, and reads as without them.
 */
ssize_t trev_remote_read_flags(struct trev_remote *r, int h, void *buf, size_t size,
			       int timeout_ms, unsigned int pr);
ssize_t trev_remote_write(struct trev_remote *r, int h, const void *buf, size_t size);
int trev_remote_poll(struct trev_remote *r, int h, int timeout_ms);
int trev_remote_close_file(struct trev_remote *r, int h);
/* Directory entries: @fn(name, is_dir, mode, arg); non-zero stops. */
int trev_remote_readdir(struct trev_remote *r, const char *path,
			int (*fn)(const char *name, int is_dir, unsigned int mode, void *arg),
			void *arg);
int trev_remote_stat(struct trev_remote *r, const char *path, int *is_dir, unsigned int *mode);
int trev_remote_mkdir(struct trev_remote *r, const char *path);
int trev_remote_rmdir(struct trev_remote *r, const char *path);

/* `echo -n text > path` (@append: >>). Return: 0 or a negative errno. */
int trev_remote_write_file(struct trev_remote *r, const char *path, const char *text,
			   int append);
/* A whole file, malloc'd, NUL-terminated, without blocking. Return: length or -errno. */
ssize_t trev_remote_read_file(struct trev_remote *r, const char *path, char **text);

/* End the process's start-up hold (TREV_ATTACH_WAIT). Return: 0 or a negative errno. */
int trev_remote_release(struct trev_remote *r);
/*
 * trev_remote_hold() - send HOLD: the process will wait in exit() until
 * this connection closes (at most 10 s). Returns once the process counts
 * the hold (its first reply), so a RELEASE sent afterwards cannot let the
 * program reach its exit unheld; the second reply comes when the exit
 * begins (trev_remote_hold_wait()). Use the connection for nothing else.
 * Return: 0 or a negative errno.
 */
int trev_remote_hold(struct trev_remote *r);
/*
 * trev_remote_hold_wait() - whether HOLD's reply came, waiting up to
 * @timeout_ms (0: just look)
 * Return: 1 the process is exiting, 0 not yet, -ECONNRESET the process is
 * gone without an exit (killed), or another negative errno.
 */
int trev_remote_hold_wait(struct trev_remote *r, int timeout_ms);

/*
 * trev_remote_map() - MAP: receive the memfd of the process's ring buffer
 * (proto.h), to read with trev_rb_attach(), which checks what it holds.
 * @flags: TREV_MAP_*; with TREV_MAP_CONSUME this connection consumes the
 *         buffer until it closes
 * @busyfd: NULL, or receives the memfd of the process's busy words for
 *          trev_rb_attach_busy(), -1 when it has none or speaks a version
 *          before TREV_PROTO_MAP_BUSY
 * Return: 0 with *@memfd (and *@busyfd) set (the caller closes them), the
 * process's negative errno, or -EPROTO for a malformed reply (reported):
 * a reply carries one descriptor, or two when the busy words were asked
 * for; an error none.
 */
int trev_remote_map(struct trev_remote *r, unsigned int flags, int *memfd, int *busyfd);

/*
 * trev_remote_restage() - RESTAGE (version 5): hand the staged events of
 * trev_rb_stage_export(), @len <= TREV_PROTO_MAX_PAYLOAD bytes, back to
 * the process whose buffer this connection consumes (MAP with
 * TREV_MAP_CONSUME). Return: 0, -EOPNOTSUPP (an older process), or the
 * process's negative errno.
 */
int trev_remote_restage(struct trev_remote *r, const void *buf, size_t len);

/*
 * trev_remote_unstage() - UNSTAGE (version 5): the events the process had
 * staged per CPU, now this connection's to consume (after MAP with
 * TREV_MAP_CONSUME), as trev_rb_stage_export() records, up to @size
 * bytes (>= 16 KiB). Return: their bytes, 0 when none are left,
 * -EOPNOTSUPP (an older process) or a negative errno.
 */
ssize_t trev_remote_unstage(struct trev_remote *r, void *buf, size_t size);

/* The protocol version HELLO agreed on. */
unsigned int trev_remote_version(const struct trev_remote *r);

/*
 * trev_remote_hung_up() - has the process closed this connection (died)?
 * Only for a connection with no request in flight. Does not block.
 */
bool trev_remote_hung_up(struct trev_remote *r);

/*
 * trev_remote_malformed() - report a reply to @op (TREV_OP_*) that its
 * caller found malformed ("process N sent a malformed reply to OP: ...")
 * and give the connection up. Return: -EPROTO.
 */
int trev_remote_malformed(struct trev_remote *r, unsigned int op, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * trev_remote_set_reporter() - where malformed replies are reported after
 * the handshake: one line without "trev: " (NULL: stderr, "trev: LINE").
 * Context: before any connection; not thread-safe.
 */
void trev_remote_set_reporter(void (*fn)(const char *line));

#endif /* TREV_TOOLS_REMOTE_H */
