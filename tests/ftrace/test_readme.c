// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tracefs README (docs/tracefs.md, "README"): what it claims, line by line, the tree
 * does. The text is read and parsed, not copied here: every file line names a file that
 * exists (events/<system>/<event>/ an event of this program); every trace_clock is offered;
 * every function command and event trigger is taken on a traced function or an event, and
 * removed; every hist parameter, special field and modifier is taken in a hist trigger; the
 * function filter's globs, modules and notrace forms are taken. A claim this test has no
 * check for fails it, so a README line cannot be added without its check. README is in the
 * top instance only, as the kernel's, and names none of the features ftracetest looks for
 * that trev lacks.
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include <trev/trev.h>

#include "ft_funcs.h"
#include "ft_read.h"

#define CREATE_TRACE_POINTS
#include "ftcmd_events.h"

#define EVENT_DIR	"events/ftcmd/ftcmd_sample/"

static char readme[1 << 16];
static char text[1 << 16];

/* @line with <system> and <event> made this program's event, in @out. */
static void rd_subst(const char *line, char *out, size_t size)
{
	size_t n = 0;

	while (*line && n + 32 < size) {
		if (!strncmp(line, "<system>", 8)) {
			n += (size_t)snprintf(out + n, size - n, "ftcmd");
			line += 8;
		} else if (!strncmp(line, "<event>", 7)) {
			n += (size_t)snprintf(out + n, size - n, "ftcmd_sample");
			line += 7;
		} else {
			out[n++] = *line++;
		}
	}
	out[n] = '\0';
}

/* The README's lines, each NUL-terminated, in a copy (rd_lines()). */
static char *lines[512];
static int nlines;

static void rd_lines(void)
{
	static char copy[sizeof(readme)];
	char *p;

	memcpy(copy, readme, sizeof(copy));
	nlines = 0;
	for (p = copy; *p && nlines < 512;) {
		char *nl = strchr(p, '\n');

		lines[nlines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	assert_true(nlines < 512);
}

static int setup(void **state)
{
	(void)state;
	ft_read(readme, sizeof(readme), "README");
	rd_lines();
	return 0;
}

/* @cmd is taken by @path (appended), and `!@cmd` (or @undo) takes it out again. */
static void assert_taken(const char *path, const char *cmd, const char *undo)
{
	char neg[512];
	int ret = trev_append(path, cmd);

	if (ret)
		fail_msg("README claims it, but %s refuses '%s': %d\n%s", path, cmd, ret,
			 ft_read(text, sizeof(text), "error_log"));
	if (undo && !*undo)
		return;
	snprintf(neg, sizeof(neg), "!%s", undo ? undo : cmd);
	ret = trev_append(path, neg);
	if (ret)
		fail_msg("%s refuses '%s': %d", path, neg, ret);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- files ---------------------------------------------------------------------------- */

/*
 * A file line: two spaces, a name, blanks, "- " (the top's files and directories); or, under
 * a directory line, six spaces, a name and a tab (its files). "hist trigger" names the file
 * hist.
 */
static void test_files(void **state)
{
	char dir[512] = "", path[1024], name[256];
	int checked = 0;

	(void)state;
	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i];
		struct trev_stat st;
		size_t len;
		int ret;

		if (starts(l, "  ") && l[2] != ' ' && l[2] != '\t' && strstr(l, "- ")) {
			len = strcspn(l + 2, " \t");
			snprintf(name, sizeof(name), "%.*s", (int)len, l + 2);
			rd_subst(name, path, sizeof(path));
			/* events/.../ lines open a directory whose files follow. */
			if (path[strlen(path) - 1] == '/')
				snprintf(dir, sizeof(dir), "%.511s", path);
			else
				dir[0] = '\0';
		} else if (starts(l, "      ") && l[6] != ' ' && l[6] != '\t' && *dir) {
			len = strcspn(l + 6, " \t");
			snprintf(name, sizeof(name), "%.*s", (int)len, l + 6);
			snprintf(path, sizeof(path), "%.511s%.255s", dir, name);
		} else {
			continue;
		}
		ret = trev_path_stat(path, &st);
		if (ret)
			fail_msg("README line %d names %s, which the tree lacks (%d): %s", i + 1,
				 path, ret, l);
		checked++;
	}
	/* The parse found the file lines (the top's, the events/ directories' and their files). */
	assert_true(checked >= 30);
}

/* README is the top instance's only, as in the kernel (tracer_init_tracefs()). */
static void test_top_only(void **state)
{
	struct trev_stat st;

	(void)state;
	assert_int_equal(trev_mkdir("instances/readme"), 0);
	assert_int_equal(trev_path_stat("instances/readme/README", &st), -ENOENT);
	assert_int_equal(trev_rmdir("instances/readme"), 0);
	assert_int_equal(trev_write("README", "x"), -EACCES);
}

/* ---- trace_clock ----------------------------------------------------------------------- */

static void test_clocks(void **state)
{
	const char *clocks = ft_read(text, sizeof(text), "trace_clock");
	static char padded[sizeof(text) + 3];
	int in = 0, checked = 0;

	(void)state;
	/* The file's words between blanks: " [local] mono ...\n" as " local  mono ... " */
	snprintf(padded, sizeof(padded), " %s ", clocks);
	for (char *p = padded; *p; p++)
		if (*p == '[' || *p == ']' || *p == '\n')
			*p = ' ';
	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i], *colon;
		char name[64], want[80];

		if (strstr(l, "trace_clock\t")) {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		colon = strstr(l, ":   ");
		if (!colon)
			break;
		while (*l == ' ')
			l++;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - l), l);
		snprintf(want, sizeof(want), " %s ", name);
		if (!strstr(padded, want))
			fail_msg("README lists clock %s; trace_clock offers: %s", name, clocks);
		checked++;
	}
	assert_true(checked >= 2);
}

/* ---- set_ftrace_filter ----------------------------------------------------------------- */

/* The function commands listed after "trigger: " in the set_ftrace_filter section. */
static void test_function_commands(void **state)
{
	int in = 0, checked = 0;

	(void)state;
	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i];
		char word[128], cmd[256], fcmd[300];

		if (strstr(l, "  set_ftrace_filter\t")) {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		if (in == 2 && strstr(l, "example:"))
			break;
		while (*l == '\t' || *l == ' ')
			l++;
		if (starts(l, "trigger: ")) {
			/* "trigger: traceon, traceoff" */
			char list[128];

			snprintf(list, sizeof(list), "%s", l + 9);
			for (char *t = strtok(list, ", "); t; t = strtok(NULL, ", ")) {
				snprintf(fcmd, sizeof(fcmd), "ft_add:%s", t);
				assert_taken("set_ftrace_filter", fcmd, NULL);
				checked++;
			}
			in = 2;
			continue;
		}
		if (in != 2)
			continue;
		snprintf(word, sizeof(word), "%s", l);
		rd_subst(word, cmd, sizeof(cmd));
		snprintf(fcmd, sizeof(fcmd), "ft_add:%s", cmd);
		assert_taken("set_ftrace_filter", fcmd, NULL);
		checked++;
	}
	assert_true(checked >= 8);
}

/* accepts: globs; modules: :mod:; set_ftrace_notrace's forms. */
static void test_function_filters(void **state)
{
	static const char *const globs[] = { "ft_add", "ft_a?d", "ft_[a]dd", "*t_add", "ft_ad*",
					     "*t_ad*", "f*dd" };
	const char *text_filter;
	void *h;

	(void)state;
	assert_non_null(strstr(readme, "accepts: func_full_name or glob-matching-pattern\n"));
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		assert_int_equal(trev_write("set_ftrace_filter", globs[i]), 0);
		text_filter = ft_read(text, sizeof(text), "set_ftrace_filter");
		if (strcmp(text_filter, "ft_add\n"))
			fail_msg("set_ftrace_filter '%s' selects:\n%s", globs[i], text_filter);
	}
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);

	assert_non_null(strstr(readme, "Format: :mod:<module-name>\n"));
	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	assert_int_equal(trev_write("set_ftrace_filter", ":mod:libft_mod"), 0);
	assert_non_null(strstr(ft_read(text, sizeof(text), "set_ftrace_filter"), " [libft_mod]"));
	assert_int_equal(trev_write("set_ftrace_filter", ""), 0);

	assert_non_null(strstr(readme, "accepts: func_full_name, *func_end, func_begin*, "
				       "*func_middle*\n"));
	assert_non_null(strstr(readme, "modules: Can select a group via module command :mod:\n"));
	assert_int_equal(trev_write("set_ftrace_notrace", "ft_add"), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", "*t_add"), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", "ft_ad*"), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", "*t_ad*"), 0);
	assert_int_equal(trev_write("set_ftrace_notrace", ":mod:libft_mod"), 0);
	assert_non_null(strstr(ft_read(text, sizeof(text), "set_ftrace_notrace"), " [libft_mod]"));
	/* "Does not accept triggers" */
	assert_int_equal(trev_write("set_ftrace_notrace", "ft_add:traceoff"), -EINVAL);
	assert_int_equal(trev_write("set_ftrace_notrace", ""), 0);
	dlclose(h);
}

/* ---- event triggers -------------------------------------------------------------------- */

/* The event trigger commands listed after "trigger: " in the events/ section. */
static void test_event_triggers(void **state)
{
	int in = 0, checked = 0;

	(void)state;
	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i];
		char word[128], cmd[256];

		if (starts(l, "      trigger\t")) {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		if (strstr(l, "example:"))
			break;
		while (*l == '\t' || *l == ' ')
			l++;
		if (starts(l, "trigger: ")) {
			char list[128];

			snprintf(list, sizeof(list), "%s", l + 9);
			for (char *t = strtok(list, ", "); t; t = strtok(NULL, ", ")) {
				assert_taken(EVENT_DIR "trigger", t, NULL);
				checked++;
			}
			in = 2;
			continue;
		}
		if (in != 2)
			continue;
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(l, " "), l);
		rd_subst(word, cmd, sizeof(cmd));
		if (!strcmp(cmd, "hist"))
			assert_taken(EVENT_DIR "trigger", "hist:keys=v", NULL);
		else
			assert_taken(EVENT_DIR "trigger", cmd, NULL);
		checked++;
	}
	assert_true(checked >= 8);
	/* Format: <trigger>[:count][if <filter>] */
	assert_non_null(strstr(readme, "Format: <trigger>[:count][if <filter>]\n"));
	assert_taken(EVENT_DIR "trigger", "traceoff:3 if v > 1", "traceoff:0");
}

/* ---- hist ------------------------------------------------------------------------------ */

/* A hist trigger for each parameter the Format lines list ("[:NAME..." and "[if"). */
static const struct {
	const char *param;
	const char *trigger;	/* taken with it, then removed */
} hist_params[] = {
	{ "keys", "hist:keys=v,common_pid,common_flags" },	/* "up to three fields" */
	{ "values", "hist:keys=v:values=common_pid" },
	{ "sort", "hist:keys=v,common_pid:sort=v.descending,common_pid" },
	{ "size", "hist:keys=v:size=256" },
	{ "pause", "hist:keys=v:pause" },
	{ "continue", "hist:keys=v:continue" },
	{ "clear", "hist:keys=v:clear" },
	{ "name", "hist:keys=v:name=histname1" },
	{ "if", "hist:keys=v if v > 1" },
	/* "[:<var1>=...]" and "[:<handler>.<action>]": a variable, a handler, an action */
	{ "", "hist:keys=v:x=v,y=v*2+1:onmax($x).save(common_pid)" },
};

static const char *hist_trigger_of(const char *param)
{
	for (size_t i = 0; i < sizeof(hist_params) / sizeof(hist_params[0]); i++)
		if (!strcmp(hist_params[i].param, param))
			return hist_params[i].trigger;
	return NULL;
}

static void test_hist_params(void **state)
{
	int in = 0, checked = 0;

	(void)state;
	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i], *p;

		if (strstr(l, "Format: hist:keys=")) {
			in = 1;
			assert_taken(EVENT_DIR "trigger", hist_trigger_of("keys"), NULL);
			checked++;
			continue;
		}
		if (!in)
			continue;
		while (*l == '\t' || *l == ' ')
			l++;
		if (*l != '[')
			break;
		for (p = l; (p = strchr(p, '[')); p++) {
			char param[64];
			const char *trigger;
			size_t len;

			p++;
			/* "[:name" and "[if"; not the "[,field2,...]" inside a parameter. */
			if (*p == ':')
				p++;
			else if (!starts(p, "if "))
				continue;
			len = strcspn(p, "=]< ");
			snprintf(param, sizeof(param), "%.*s", (int)len, p);
			trigger = hist_trigger_of(param);
			if (!trigger)
				fail_msg("README's hist Format lists '%s', which this test has no "
					 "check for: %s", param, l);
			if (!strcmp(param, "pause") || !strcmp(param, "continue") ||
			    !strcmp(param, "clear")) {
				/* On a hist trigger that exists, as the kernel's. */
				assert_int_equal(trev_append(EVENT_DIR "trigger", "hist:keys=v"), 0);
				assert_taken(EVENT_DIR "trigger", trigger, "");
				assert_int_equal(trev_append(EVENT_DIR "trigger", "!hist:keys=v"), 0);
			} else {
				assert_taken(EVENT_DIR "trigger", trigger, NULL);
			}
			checked++;
		}
	}
	assert_true(checked >= 8);
	assert_string_equal(ft_read(text, sizeof(text), EVENT_DIR "trigger"),
			    "# Available triggers:\n# traceon traceoff snapshot stacktrace "
			    "enable_event disable_event enable_hist disable_hist hist\n");
}

/* The special fields ("name - ...") and the modifiers (".name  ...") the README lists. */
static const struct {
	const char *name;
	const char *trigger;
} hist_fields[] = {
	{ "common_timestamp", "hist:keys=common_timestamp" },
	{ ".hex", "hist:keys=v.hex" },
	{ ".sym", "hist:keys=v.sym" },
	{ ".sym-offset", "hist:keys=v.sym-offset" },
	{ ".execname", "hist:keys=common_pid.execname" },
	{ ".syscall", "hist:keys=v.syscall" },
	{ ".log2", "hist:keys=v.log2" },
	{ ".buckets", "hist:keys=v.buckets=10" },
	{ ".usecs", "hist:keys=common_timestamp.usecs" },
	{ ".percent", "hist:keys=common_pid:vals=v.percent" },
	{ ".graph", "hist:keys=common_pid:vals=hitcount.graph" },
};

static void test_hist_fields(void **state)
{
	int checked = 0, in_special = 0;

	(void)state;
	assert_non_null(strstr(readme, "default 2048 entries"));
	assert_int_equal(trev_append(EVENT_DIR "trigger", "hist:keys=stacktrace"), 0);
	assert_non_null(strstr(ft_read(text, sizeof(text), EVENT_DIR "trigger"), ":size=2048 "));
	assert_int_equal(trev_append(EVENT_DIR "trigger", "!hist:keys=stacktrace"), 0);
	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i];
		char name[64];
		const char *trigger = NULL;
		size_t len;

		if (strstr(l, "special fields can be used")) {
			in_special = 1;
			continue;
		}
		while (*l == '\t' || *l == ' ')
			l++;
		if (in_special && strstr(l, " - ")) {
			len = strcspn(l, " ");
		} else if (*l == '.' && lines[i][0] == '\t') {
			in_special = 0;
			len = strcspn(l, " =");
		} else {
			in_special = 0;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)len, l);
		for (size_t k = 0; k < sizeof(hist_fields) / sizeof(hist_fields[0]); k++)
			if (!strcmp(hist_fields[k].name, name))
				trigger = hist_fields[k].trigger;
		if (!trigger)
			fail_msg("README lists the hist field or modifier '%s', which this test "
				 "has no check for", name);
		assert_taken(EVENT_DIR "trigger", trigger, NULL);
		checked++;
	}
	assert_int_equal(checked, (int)(sizeof(hist_fields) / sizeof(hist_fields[0])));
}

/* The synthetic_events example README gives (ftracetest requires its text) is taken. */
static void test_synth_example(void **state)
{
	const char *ex = strstr(readme, "example: echo '"), *end;
	char def[128];

	(void)state;
	assert_non_null(ex);
	ex += strlen("example: echo '");
	end = strstr(ex, "' >> synthetic_events\n");
	assert_non_null(end);
	assert_true(end - ex < (long)sizeof(def));
	snprintf(def, sizeof(def), "%.*s", (int)(end - ex), ex);
	assert_int_equal(trev_append("synthetic_events", def), 0);
	assert_non_null(strstr(ft_read(text, sizeof(text), "events/synthetic/myevent/format"),
			       "field:__data_loc char[] name;"));
	assert_int_equal(trev_append("synthetic_events", "!myevent"), 0);
}

/* ---- probe events ---------------------------------------------------------------------- */

/* The file offset of code address @addr in this program's file. */
static int exe_offset_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long *addr = arg;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name)
		return 0;	/* the program is the first, with no name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		unsigned long va = *addr - info->dlpi_addr;

		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_filesz) {
			*addr = va - ph->p_vaddr + ph->p_offset;
			return 1;
		}
	}
	return 0;
}

/* @def is taken by @file (appended) and listed; then every probe goes. */
static void assert_probe(const char *file, const char *def, const char *listed)
{
	int ret = trev_append(file, def);

	if (ret)
		fail_msg("README claims it, but %s refuses '%s': %d\n%s", file, def, ret,
			 ft_read(text, sizeof(text), "error_log"));
	if (!strstr(ft_read(text, sizeof(text), file), listed))
		fail_msg("%s lists no '%s' after '%s':\n%s", file, listed, def, text);
	assert_int_equal(trev_write(file, ""), 0);
}

/*
 * The probe events' lines (docs/probes.md): each form of Format, place, fetcharg and type
 * taken on ft_add, a function of this program built with the function tracer's flags.
 */
static void test_probes(void **state)
{
	static const char *const lines_claimed[] = {
		"\t   Format: p[:[<group>/][<event>]] <place> [<args>]\n",
		"\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]\n",
		"\t           -:[<group>/][<event>]\n",
		"\t    place: [<module>:]<symbol>[+<offset>]|<memaddr>\n",
		"place (kretprobe): [<module>:]<symbol>[+<offset>]%return|<memaddr>\n",
		"   place (uprobe): <path>:<offset>[%return]\n",
		"\t     args: <name>=fetcharg[:type]\n",
		"\t fetcharg: %<register>, @<address>, @<symbol>[+|-<offset>],\n",
		"\t           $stack<index>, $stack, $retval, $comm, $arg<N>,\n",
		"\t           +|-[u]<offset>(<fetcharg>), \\imm-value, \\\"imm-string\"\n",
		"\t     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, string, symbol,\n",
		"\t           b<bit-width>@<bit-offset>/<container-size>, ustring,\n",
		"\t           symstr, <type>\\[<array-size>\\]\n",
	};
	static const char *const types[] = {
		"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "x8", "x16", "x32", "x64",
		"string", "symbol", "b3@2/8", "ustring", "symstr", "u32[2]",
	};
	char def[1024], listed[1024], exe[512];
	unsigned long off = (unsigned long)(uintptr_t)ft_add, site = 0;
	ssize_t n;
	void *h;

	(void)state;
	for (size_t i = 0; i < sizeof(lines_claimed) / sizeof(lines_claimed[0]); i++)
		if (!strstr(readme, lines_claimed[i]))
			fail_msg("README has no line '%s'", lines_claimed[i]);
	/* Format: p and r, with and without group and event; -: forms. */
	assert_probe("kprobe_events", "p ft_add", "p:kprobes/p_ft_add_0 ft_add\n");
	assert_probe("kprobe_events", "p:ev ft_add", "p:kprobes/ev ft_add\n");
	assert_probe("kprobe_events", "p:grp/ev ft_add", "p:grp/ev ft_add\n");
	assert_probe("kprobe_events", "p:grp/ ft_add", "p:grp/p_ft_add_0 ft_add\n");
	assert_probe("kprobe_events", "r ft_add", "r:kprobes/r_ft_add_0 ft_add\n");
	assert_probe("kprobe_events", "r5:ev ft_add", "r:kprobes/ev ft_add\n");
	assert_int_equal(trev_append("kprobe_events", "p:grp/a ft_add\np:grp/b ft_add\np:c ft_add"), 0);
	assert_int_equal(trev_append("kprobe_events", "-:grp/a"), 0);
	assert_int_equal(trev_append("kprobe_events", "-:c"), 0);
	assert_int_equal(trev_append("kprobe_events", "-:grp/"), 0);
	assert_string_equal(ft_read(text, sizeof(text), "kprobe_events"), "");
	/* place: [<module>:]<symbol>[+<offset>] (offset 0), %return, <memaddr>. */
	h = dlopen(FT_MOD, RTLD_NOW);
	assert_non_null(h);
	assert_probe("kprobe_events", "p libft_mod:ft_mod_twice", "libft_mod:ft_mod_twice\n");
	dlclose(h);
	assert_probe("kprobe_events", "p ft_add+0", "p:kprobes/p_ft_add_0 ft_add\n");
	assert_probe("kprobe_events", "p:ev ft_add%return", "r:kprobes/ev ft_add\n");
	/* The entry is the function's address, or 4 bytes after it behind an endbr64. */
	for (unsigned long d = 0; d <= 4 && !site; d += 4) {
		snprintf(def, sizeof(def), "p:ev 0x%lx", (unsigned long)(uintptr_t)ft_add + d);
		if (trev_append("kprobe_events", def) == 0)
			site = (unsigned long)(uintptr_t)ft_add + d;
	}
	assert_true(site != 0);
	snprintf(listed, sizeof(listed), "p:kprobes/ev 0x%016lx\n", site);
	assert_non_null(strstr(ft_read(text, sizeof(text), "kprobe_events"), listed));
	assert_int_equal(trev_write("kprobe_events", ""), 0);
	/* place (uprobe): <path>:<offset>[%return], the program's file. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	off = site;
	assert_int_equal(dl_iterate_phdr(exe_offset_cb, &off), 1);
	snprintf(def, sizeof(def), "p:up %s:0x%lx", exe, off);
	snprintf(listed, sizeof(listed), "p:uprobes/up %s:0x%016lx\n", exe, off);
	assert_probe("uprobe_events", def, listed);
	snprintf(def, sizeof(def), "p:up %s:0x%lx%%return", exe, off);
	snprintf(listed, sizeof(listed), "r:uprobes/up %s:0x%016lx\n", exe, off);
	assert_probe("uprobe_events", def, listed);
	/* args and fetcharg: each form; type: each type. */
	assert_probe("kprobe_events",
		     "p:ev ft_add a=%di b=@0x1000 c=@ft_add+4 d=$stack0 e=$stack f=$comm g=$arg2 "
		     "h=+0(%sp) i=-8(+u0(%sp)) j=\\12 k=\\\"str\"",
		     "a=%di b=@0x1000 c=@ft_add+4 d=$stack0 e=$stack f=$comm g=$arg2 h=+0(%sp) "
		     "i=-8(+u0(%sp)) j=\\12 k=\\\"str\"\n");
	assert_probe("kprobe_events", "r:ev ft_add rv=$retval", "rv=$retval\n");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(def, sizeof(def), "p:ev ft_add v=%s:%s",
			 strstr(types[i], "string") || strchr(types[i], '[') ? "+0(%sp)" : "%di",
			 types[i]);
		snprintf(listed, sizeof(listed), "%s\n", def + strlen("p:ev ft_add "));
		assert_probe("kprobe_events", def, listed);
	}
}

/* ---- what it does not say -------------------------------------------------------------- */

/*
 * The strings ftracetest's cases look for (README and file requirements) of what trev does
 * not do (docs/ftracetest.md): a case would run and fail instead of being UNSUPPORTED.
 */
static void test_not_claimed(void **state)
{
	static const char *const absent[] = {
		"<attached-group>", "common_cpu",
		"timestamp_mode", "saved_cmdlines_size", "x86-tsc", "global:",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		if (strstr(readme, absent[i]))
			fail_msg("README names '%s', which trev does not do", absent[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_top_only),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_function_commands),
		cmocka_unit_test(test_function_filters),
		cmocka_unit_test(test_event_triggers),
		cmocka_unit_test(test_hist_params),
		cmocka_unit_test(test_hist_fields),
		cmocka_unit_test(test_synth_example),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_not_claimed),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
