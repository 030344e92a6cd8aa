#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the fenced examples of README.md and docs/**/*.md (tests/scripts/doc_examples.sh sets
# up the tree they run against: the built trev first on PATH, the library installed in a
# prefix that pkg-config finds, `build` a link to the build tree).
#
#   doc_examples.py SOURCE_DIR WORK_DIR [PAGE...]
#
# Each page runs in a directory of its own, its fences in order, so that a fence can use the
# files an earlier one made. What a fence is, by its language and by the tag in an HTML
# comment on the line just before it (tests/README.md, "Examples in the docs"):
#   ```sh            run with bash -e -o pipefail; in a fence whose lines start with "$ ",
#                    only those lines (and their "\" continuations) are the commands
#   ```c             with main(): built against the installed trev and run; without it: a
#                    fragment, compiled inside a function, with <trev/trev.h> included
#   ```  (no language)  text: a diagram, a layout, an output that is not checked
#   <!-- example: file NAME -->            the fence is written to NAME, not run
#   <!-- example: output -->               the output of the fence run before it, compared
#       line by line with blanks folded, and the digits of '#' lines and of a trace line's
#       TASK-PID [CPU] flags TIMESTAMP: prefix; a "..." line stands for any lines
#   <!-- example: skip (WHY) -->           not run, listed with WHY: root, a mount, the
#       network, a running process
#   <!-- example: illustrative (WHY) -->   a sh or c fence that is not meant to run as it is
# A failing fence prints its page and line, the commands and their output; the exit status
# is 1 when any failed.
import os
import re
import subprocess
import sys

TAG = re.compile(r'^\s*<!--\s*example:\s*(\w+)\s*(.*?)\s*-->\s*$')
FENCE = re.compile(r'^(\s*)```\s*([A-Za-z0-9_+-]*)\s*$')
TIMEOUT = 60


def fences(path):
	with open(path, encoding='utf-8') as f:
		lines = f.read().split('\n')
	i = 0
	while i < len(lines):
		m = FENCE.match(lines[i])
		if not m:
			if TAG.match(lines[i]) and not (i + 1 < len(lines) and FENCE.match(lines[i + 1])):
				yield i + 1, None, 'orphan', '', ''
			i += 1
			continue
		indent, lang = m.group(1), m.group(2)
		tag, arg = '', ''
		t = TAG.match(lines[i - 1]) if i > 0 else None
		if t:
			tag, arg = t.group(1), t.group(2)
			if arg.startswith('(') and arg.endswith(')'):
				arg = arg[1:-1]
		j = i + 1
		while j < len(lines) and lines[j].strip() != '```':
			j += 1
		if j == len(lines):
			yield i + 1, lang, 'unterminated', '', ''
			return
		body = [l[len(indent):] if l.startswith(indent) else l.lstrip()
			for l in lines[i + 1:j]]
		yield i + 1, lang, tag, arg, '\n'.join(body) + '\n'
		i = j + 1


def session_commands(body):
	"""The commands of a fence of "$ " lines, or None when it has none."""
	lines = body.split('\n')
	if not any(l.startswith('$ ') for l in lines):
		return None
	cmds, cont = [], False
	for l in lines:
		if l.startswith('$ ') or cont:
			cmds.append(l[2:] if l.startswith('$ ') and not cont else l)
			cont = l.endswith('\\')
	return '\n'.join(cmds) + '\n'


PREFIX = re.compile(r'^(.*?[0-9]+\.[0-9]+: )')


def fold(line):
	"""Blanks folded; the digits that differ between runs folded too: in a '#' header line
	(#P:N) and in the TASK-PID [CPU] flags TIMESTAMP: prefix of a trace line."""
	m = PREFIX.match(line)
	if line.startswith('#'):
		line = re.sub(r'[0-9]+', '0', line)
	elif m:
		line = re.sub(r'[0-9]+', '0', m.group(1)) + line[m.end():]
	return ' '.join(line.split())


def matches(expected, got):
	"""expected's lines against got's, folded; a "..." line stands for any lines."""
	exp = [fold(l) for l in expected.rstrip('\n').split('\n')]
	have = [fold(l) for l in got.rstrip('\n').split('\n')]
	memo = {}

	def m(i, j):
		if (i, j) in memo:
			return memo[i, j]
		if i == len(exp):
			r = j == len(have)
		elif exp[i] == '...':
			r = any(m(i + 1, k) for k in range(j, len(have) + 1))
		else:
			r = j < len(have) and exp[i] == have[j] and m(i + 1, j + 1)
		memo[i, j] = r
		return r
	return m(0, 0)


def run(cmd, cwd):
	try:
		p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
				   timeout=TIMEOUT)
	except subprocess.TimeoutExpired as e:
		out = (e.stdout or b'').decode(errors='replace')
		return 124, out, f'timed out after {TIMEOUT} s'
	return (p.returncode, p.stdout.decode(errors='replace'),
		p.stderr.decode(errors='replace'))


def pkg_flags():
	p = subprocess.run(['pkg-config', '--cflags', '--libs', 'trev'], capture_output=True,
			   text=True)
	if p.returncode:
		sys.exit('doc_examples: pkg-config finds no trev: ' + p.stderr)
	return p.stdout.split()


FRAGMENT_HEAD = '#include <fcntl.h>\n#include <stdio.h>\n#include <trev/trev.h>\n'


def fragment(body):
	top, inner = [], []
	for l in body.split('\n'):
		if l.startswith('#include'):
			top.append(l)
		elif l.strip() in ('...', '...;'):
			inner.append(';')
		else:
			inner.append(l)
	return (FRAGMENT_HEAD + '\n'.join(top) + '\n\nvoid doc_example(void);\nvoid doc_example(void)\n{\n'
		+ '\n'.join(inner) + '\n}\n')


class Result:
	def __init__(self):
		self.ran = self.checked = self.files = self.text = self.illus = 0
		self.skipped = []
		self.failed = []


def run_page(src, work, page, res, flags):
	wd = os.path.join(work, page.replace('/', '_'))
	os.makedirs(wd, exist_ok=True)
	build = os.environ['TREV_BUILD_DIR']
	if not os.path.exists(os.path.join(wd, 'build')):
		os.symlink(build, os.path.join(wd, 'build'))
	last = None		# (where, stdout) of the fence run last
	n = 0
	for line, lang, tag, arg, body in fences(os.path.join(src, page)):
		where = f'{page}:{line}'
		n += 1

		def fail(what, out=''):
			res.failed.append(f'{where}: {what}\n{body}' + (f'---- output:\n{out}' if out else ''))

		if tag in ('orphan', 'unterminated'):
			res.failed.append(f'{where}: an example tag not right before a fence' if tag == 'orphan'
					  else f'{where}: a fence that does not end')
			continue
		if tag == 'skip':
			if not arg:
				fail('a skip without its reason: <!-- example: skip (WHY) -->')
			res.skipped.append(f'{where}: {arg}')
			continue
		if tag == 'illustrative':
			if not arg:
				fail('illustrative without its reason: <!-- example: illustrative (WHY) -->')
			res.illus += 1
			continue
		if tag == 'file':
			if not re.fullmatch(r'[A-Za-z0-9_.-]+', arg):
				fail(f'file: not a plain file name: {arg!r}')
				continue
			with open(os.path.join(wd, arg), 'w') as f:
				f.write(body)
			res.files += 1
			continue
		if tag == 'output':
			if last is None:
				fail('an output fence after no example that ran')
			elif not matches(body, last[1]):
				fail(f'the output of {last[0]} differs', last[1])
			res.checked += 1
			continue
		if tag:
			fail(f'unknown example tag {tag!r}')
			continue
		if lang in ('sh', 'bash'):
			script = session_commands(body) or body
			with open(os.path.join(wd, f'ex{n}.sh'), 'w') as f:
				f.write(script)
			st, out, err = run(['bash', '-e', '-o', 'pipefail', f'ex{n}.sh'], wd)
			if st:
				fail(f'status {st}', out + err)
			last = (where, out)
			res.ran += 1
		elif lang == 'c':
			exe = f'ex{n}'
			if re.search(r'\bmain\s*\(', body):
				with open(os.path.join(wd, exe + '.c'), 'w') as f:
					f.write(body)
				st, out, err = run(['cc', '-Wall', '-Werror', '-I.', '-o', exe, exe + '.c'] + flags, wd)
				if st:
					fail('does not build', out + err)
					continue
				st, out, err = run(['./' + exe], wd)
				if st:
					fail(f'status {st}', out + err)
				last = (where, out)
			else:
				with open(os.path.join(wd, exe + '.c'), 'w') as f:
					f.write(fragment(body))
				st, out, err = run(['cc', '-Wall', '-Werror', '-Wno-unused', '-I.', '-c', '-o',
						    exe + '.o', exe + '.c'] + flags, wd)
				if st:
					fail('does not compile (as a function body with <trev/trev.h>)', out + err)
			res.ran += 1
		elif lang == '':
			res.text += 1
		else:
			fail(f'a fence of language {lang!r} with no tag: tag it (tests/README.md)')


def main():
	src, work = sys.argv[1], sys.argv[2]
	pages = sys.argv[3:]
	if not pages:
		pages = ['README.md']
		for d, _, names in sorted(os.walk(os.path.join(src, 'docs'))):
			pages += sorted(os.path.relpath(os.path.join(d, n), src) for n in names if n.endswith('.md'))
	flags = pkg_flags()
	res = Result()
	for page in pages:
		run_page(src, work, page, res, flags)
	for s in res.skipped:
		print('skip:', s)
	for f in res.failed:
		print('FAIL:', f)
	print(f'doc examples: {len(pages)} pages; {res.ran} run, {res.checked} outputs checked, '
	      f'{res.files} files written, {len(res.skipped)} skipped, {res.illus} illustrative, '
	      f'{res.text} text fences; {len(res.failed)} failed')
	return 1 if res.failed else 0


if __name__ == '__main__':
	sys.exit(main())
