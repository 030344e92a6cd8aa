/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Drives the tracefs tree for the script tests (tests/scripts/tracefs_*.sh,
 * through tests/tracefs/lib.sh): one command per line on stdin, one answer
 * per command on stdout. The same commands run against the C API
 * (`tfs_driver api`) or through a FUSE mount this process serves
 * (`tfs_driver mount DIR`: trev_mount(DIR), then plain open/read/write).
 *
 *   write PATH TEXT     echo TEXT > PATH      (writen: echo -n)
 *   append PATH TEXT    echo TEXT >> PATH
 *   rawwrite PATH HEX   write the bytes HEX (pairs of hex digits) to PATH
 *   read PATH           cat PATH (without blocking)
 *   pipe PATH MS        one blocking read of PATH, given up after MS
 *   pages PATH          read kernel pages from PATH until none is left: "N pages,
 *                       E events" (records counted by walking each page's commit)
 *   ls PATH / stat PATH / mkdir PATH / rmdir PATH
 *   hold PATH / release keep PATH open (one at a time), then close it
 *   fire N              fire trev_test:tt_ints N times (a=i b=2i c=-i)
 *   fireopen ID WHAT    fire trev_test:tt_open once (id=ID what=WHAT)
 *   fireclose ID WHAT   fire trev_test:tt_close once (id=ID what=WHAT)
 *   printk TEXT         trace_printk("%s\n", TEXT)
 *   tid                 the thread id of the thread that fires
 *   pin CPU             that thread runs on CPU only (sched_setaffinity)
 *   forkread PATH N     fork(); the child fires N tt_ints and reads PATH through
 *                       the C API: "child PID", then its text
 *
 * TEXT takes \n and \t escapes. Answer: "<status> <length>\n" then length
 * bytes; status is "ok" or an errno name (EINVAL, ...).
 */
#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <trev/trev.h>

#include "tracefs/tracefs_internal.h"

#define CREATE_TRACE_POINTS
#include "trev_test_events.h"

/* trev_test:tt_hooked's registration hooks. */
int tt_reg(void)
{
	return 0;
}

void tt_unreg(void)
{
}

static const char *mount_dir;		/* NULL: the C API */
static char *out;			/* the answer's data */
static size_t out_len, out_cap;

static void out_add(const void *p, size_t n)
{
	if (out_len + n + 1 > out_cap) {
		out_cap = (out_len + n + 1) * 2;
		out = realloc(out, out_cap);
		if (!out)
			abort();
	}
	memcpy(out + out_len, p, n);
	out_len += n;
	out[out_len] = '\0';
}

static void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out_printf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		out_add(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static const char *errno_name(int e)
{
	switch (e) {
	case 0: return "ok";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EAGAIN: return "EAGAIN";
	case EBADF: return "EBADF";
	case EISDIR: return "EISDIR";
	case ENOTDIR: return "ENOTDIR";
	case ENODEV: return "ENODEV";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENOSPC: return "ENOSPC";
	default: return "EOTHER";
	}
}

static void answer(int err)
{
	printf("%s %zu\n", errno_name(err), out_len);
	fwrite(out ? out : "", 1, out_len, stdout);
	fflush(stdout);
	out_len = 0;
}

static char *full_path(const char *path)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", mount_dir, path);
	return buf;
}

/*
 * Files this driver has open through the mount. The kernel sends a FUSE
 * RELEASE after close() has returned, so a close is complete only when the
 * tree (served in this process) counts no more open files than that: an
 * rmdir right after must not find the file still open.
 */
static unsigned int mount_files_open;

/* Both backends: open, read, write, close of one file. */
struct file {
	struct trev_file *tf;
	int fd;
};

static int f_open(const char *path, int flags, struct file *f)
{
	if (!mount_dir)
		return -trev_file_open(path, flags, &f->tf);
	f->fd = open(full_path(path), flags | O_CLOEXEC);
	if (f->fd < 0)
		return errno;
	mount_files_open++;
	return 0;
}

static ssize_t f_read(struct file *f, void *buf, size_t n)
{
	ssize_t r;

	if (!mount_dir)
		return trev_file_read(f->tf, buf, n);
	r = read(f->fd, buf, n);
	return r < 0 ? -errno : r;
}

static ssize_t f_write(struct file *f, const void *buf, size_t n)
{
	ssize_t r;

	if (!mount_dir)
		return trev_file_write(f->tf, buf, n);
	r = write(f->fd, buf, n);
	return r < 0 ? -errno : r;
}

static int f_poll(struct file *f, int ms)
{
	struct pollfd p;
	int r;

	if (!mount_dir) {
		r = trev_file_poll(f->tf, ms);
		return r < 0 ? r : r > 0;
	}
	p = (struct pollfd){ .fd = f->fd, .events = POLLIN };
	r = poll(&p, 1, ms);
	return r < 0 ? -errno : r;
}

static int f_close(struct file *f)
{
	const struct timespec tick = { 0, 100 * 1000 };
	int err;

	if (!mount_dir)
		return -trev_file_close(f->tf);
	err = close(f->fd) ? errno : 0;
	mount_files_open--;
	while (trev__tfs_files_open() > mount_files_open)
		nanosleep(&tick, NULL);
	return err;
}

static int do_write(const char *path, const char *buf, size_t len, int flags)
{
	struct file f;
	size_t done = 0;
	int err = f_open(path, O_WRONLY | flags, &f);

	if (err)
		return err;
	while (done < len) {
		ssize_t n = f_write(&f, buf + done, len - done);

		if (n <= 0) {
			err = n < 0 ? (int)-n : EIO;
			break;
		}
		done += (size_t)n;
	}
	f_close(&f);
	return err;
}

static int do_read(const char *path)
{
	char buf[65536];
	struct file f;
	int err = f_open(path, O_RDONLY | O_NONBLOCK, &f);

	if (err)
		return err;
	for (;;) {
		ssize_t n = f_read(&f, buf, sizeof(buf));

		if (n == 0 || n == -EAGAIN)
			break;
		if (n < 0) {
			err = (int)-n;
			break;
		}
		out_add(buf, (size_t)n);
	}
	f_close(&f);
	return err;
}

/*
 * forkread PATH N: a child of fork() fires N tt_ints and reads PATH through
 * the C API (its own tree: the child's state); its pid, then the text.
 */
static int do_forkread(const char *path, int n)
{
	char buf[65536];
	int fds[2], status;
	ssize_t got;
	pid_t child;

	if (pipe(fds))
		return errno;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return errno;
	if (child == 0) {
		ssize_t len;

		close(fds[0]);
		for (int i = 0; i < n; i++)
			trace_tt_ints(i, 2u * (unsigned int)i, -i);
		len = trev_read(path, buf, sizeof(buf));
		if (len < 0)
			len = snprintf(buf, sizeof(buf), "error %zd\n", len);
		if (write(fds[1], buf, (size_t)len) != len)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	out_printf("child %d\n", (int)child);
	while ((got = read(fds[0], buf, sizeof(buf))) > 0)
		out_add(buf, (size_t)got);
	close(fds[0]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return EINTR;
	return 0;
}

static int do_pipe(const char *path, int ms)
{
	char buf[65536];
	struct file f;
	ssize_t n;
	int err = f_open(path, O_RDONLY, &f);

	if (err)
		return err;
	n = f_poll(&f, ms);
	if (n == 0)
		err = ETIMEDOUT;
	else if (n < 0)
		err = (int)-n;
	else if ((n = f_read(&f, buf, sizeof(buf))) < 0)
		err = (int)-n;
	else
		out_add(buf, (size_t)n);
	f_close(&f);
	return err;
}

/* Count the data records of a kernel-format page (docs/formats.md, "Ring-buffer pages"). */
static unsigned int page_events(const unsigned char *page)
{
	uint64_t commit;
	unsigned int n = 0;
	size_t off = 16;

	memcpy(&commit, page + 8, sizeof(commit));
	commit &= 0xfffff;
	while (off + 4 <= 16 + commit) {
		uint32_t hdr, len;
		unsigned int type_len;

		memcpy(&hdr, page + off, 4);
		type_len = hdr & 0x1f;
		if (type_len == 0) {		/* length in the next word */
			memcpy(&len, page + off + 4, 4);
			off += 8 + len - 4;
			n++;
		} else if (type_len <= 28) {
			off += 4 + 4 * type_len;
			n++;
		} else if (type_len == 29) {	/* padding */
			memcpy(&len, page + off + 4, 4);
			off += len ? 4 + len : 4;
			if (!len)
				break;
		} else {			/* time extend, time stamp */
			off += 8;
		}
	}
	return n;
}

static int do_pages(const char *path)
{
	unsigned char page[4096];
	unsigned int pages = 0, events = 0;
	struct file f;
	char line[64];
	int err = f_open(path, O_RDONLY | O_NONBLOCK, &f);

	if (err)
		return err;
	for (;;) {
		ssize_t n = f_read(&f, page, sizeof(page));

		if (n == 0 || n == -EAGAIN)
			break;
		if (n != (ssize_t)sizeof(page)) {
			err = n < 0 ? (int)-n : EIO;
			break;
		}
		pages++;
		events += page_events(page);
	}
	f_close(&f);
	snprintf(line, sizeof(line), "%u pages, %u events\n", pages, events);
	out_add(line, strlen(line));
	return err;
}

static int ls_one(const char *name, const struct trev_stat *st, void *arg)
{
	(void)st;
	(void)arg;
	out_add(name, strlen(name));
	out_add("\n", 1);
	return 0;
}

static int do_ls(const char *path)
{
	struct dirent *de;
	DIR *d;

	if (!mount_dir)
		return -trev_readdir(path, ls_one, NULL);
	d = opendir(full_path(path));
	if (!d)
		return errno;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			ls_one(de->d_name, NULL, NULL);
	closedir(d);
	return 0;
}

static int do_stat(const char *path)
{
	struct trev_stat st;
	struct stat sb;
	char buf[32];
	int err;

	if (!mount_dir) {
		err = -trev_path_stat(path, &st);
	} else {
		err = stat(full_path(path), &sb) ? errno : 0;
		st.is_dir = S_ISDIR(sb.st_mode);
		st.mode = sb.st_mode & 07777;
	}
	if (!err) {
		snprintf(buf, sizeof(buf), "%c %o\n", st.is_dir ? 'd' : 'f', st.mode);
		out_add(buf, strlen(buf));
	}
	return err;
}

/* \n and \t escapes; returns the length. */
static size_t unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] == 'n') {
			*w++ = '\n';
			r++;
		} else if (r[0] == '\\' && r[1] == 't') {
			*w++ = '\t';
			r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

static int hex_bytes(const char *hex, char *buf, size_t *len)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned int b;

		if (sscanf(hex, "%2x", &b) != 1)
			return EINVAL;
		buf[n++] = (char)b;
	}
	*len = n;
	return 0;
}

int main(int argc, char **argv)
{
	static struct file held;
	static bool holding;
	char line[65536];

	if (argc >= 3 && strcmp(argv[1], "mount") == 0) {
		int ret = trev_mount(argv[2]);

		if (ret) {
			printf("mount %s\n", errno_name(-ret));
			return 77;
		}
		mount_dir = argv[2];
	} else if (argc != 2 || strcmp(argv[1], "api") != 0) {
		fprintf(stderr, "usage: %s api | mount DIR\n", argv[0]);
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		char *cmd = line, *path, *text;
		char buf[4096];
		size_t len;
		int err = 0;

		line[strcspn(line, "\n")] = '\0';
		path = strchr(cmd, ' ');
		if (path)
			*path++ = '\0';
		text = path ? strchr(path, ' ') : NULL;
		if (text)
			*text++ = '\0';
		if (!text)
			text = "";
		if (strcmp(cmd, "write") == 0 || strcmp(cmd, "append") == 0) {
			len = unescape(text);
			text[len++] = '\n';
			err = do_write(path, text, len, cmd[0] == 'w' ? O_TRUNC : O_APPEND);
		} else if (strcmp(cmd, "writen") == 0) {
			len = unescape(text);
			err = do_write(path, text, len, O_TRUNC);
		} else if (strcmp(cmd, "rawwrite") == 0) {
			err = hex_bytes(text, buf, &len) ?: do_write(path, buf, len, 0);
		} else if (strcmp(cmd, "read") == 0) {
			err = do_read(path);
		} else if (strcmp(cmd, "pipe") == 0) {
			err = do_pipe(path, atoi(text));
		} else if (strcmp(cmd, "pages") == 0) {
			err = do_pages(path);
		} else if (strcmp(cmd, "ls") == 0) {
			err = do_ls(path);
		} else if (strcmp(cmd, "stat") == 0) {
			err = do_stat(path);
		} else if (strcmp(cmd, "mkdir") == 0) {
			err = mount_dir ? (mkdir(full_path(path), 0755) ? errno : 0) : -trev_mkdir(path);
		} else if (strcmp(cmd, "rmdir") == 0) {
			err = mount_dir ? (rmdir(full_path(path)) ? errno : 0) : -trev_rmdir(path);
		} else if (strcmp(cmd, "hold") == 0) {
			err = holding ? EBUSY : f_open(path, O_RDONLY | O_NONBLOCK, &held);
			holding = holding || !err;
		} else if (strcmp(cmd, "release") == 0) {
			err = holding ? f_close(&held) : EBADF;
			holding = false;
		} else if (strcmp(cmd, "fire") == 0) {
			for (int i = 0; i < atoi(path ? path : "0"); i++)
				trace_tt_ints(i, 2u * (unsigned int)i, -i);
		} else if (strcmp(cmd, "tid") == 0) {
			out_printf("%ld\n", (long)syscall(SYS_gettid));
		} else if (strcmp(cmd, "pin") == 0) {
			/* pin CPU: the thread that fires runs there (tracing_cpumask's tests). */
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(atoi(path ? path : "0"), &set);
			err = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
		} else if (strcmp(cmd, "forkread") == 0) {
			err = do_forkread(path, atoi(text));
		} else if (strcmp(cmd, "fireopen") == 0) {
			trace_tt_open(atoi(path ? path : "0"), text);
		} else if (strcmp(cmd, "fireclose") == 0) {
			trace_tt_close(atoi(path ? path : "0"), text);
		} else if (strcmp(cmd, "printk") == 0) {
			if (path && *text)
				path[strlen(path)] = ' ';	/* the text is all of it */
			trace_printk("%s\n", path ? path : "");
		} else {
			err = EINVAL;
		}
		answer(err);
	}
	if (holding)
		f_close(&held);
	if (mount_dir)
		trev_unmount();
	return 0;
}
