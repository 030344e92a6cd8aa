# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare `babeltrace2 --clock-seconds --no-delta DIR` with `trev report` of the trace.dat
that `trev convert --to ctf` turned into DIR, event by event.

    ctf_compare.py BT_STDOUT BT_STDERR REPORT RAW

REPORT is `trev report FILE`, RAW `trev report --raw FILE` (the same records in the same
order: RAW gives each one's pid, CPU and time in nanoseconds, REPORT its name and text).
For every record, per CPU and in order: the CTF event's time stamp equals RAW's to the
nanosecond, its cpu_id and common_pid equal RAW's, its name is the event's, and every field
of the tests' events (tests/tracedat/dat_record.c) equals what the report's text shows of
it. The discarded-event counts babeltrace2 reports per stream equal the report's lost
counts per CPU. Prints a summary; exits non-zero with the first difference.
"""
import re
import sys

BT_LINE = re.compile(r'^\[(\d+)\.(\d{9})\] ([^ :]+):([^ :]+): \{ cpu_id = (\d+) \}, (\{.*\})$')
BT_DISCARDED = re.compile(r'^WARNING: Tracer discarded (\d+) events between .* within stream '
                          r'"[^"]*/stream_(\d+)"')
REPORT_LINE = re.compile(r'^\s*(.+)-(\d+)\s+\[(\d{3,})\]\s+(\S{4})\s+(\d+)\.(\d{6}): (.*)$')
RAW_LINE = re.compile(r'^(\d+) (\d+) (\d+) (.*)$')
LOST = re.compile(r'^CPU:(\d+) \[LOST (\d+) EVENTS\]$')


def fail(msg):
    sys.exit('ctf_compare.py: ' + msg)


class Label(int):
    """An enum field's value: babeltrace2's ( "GET" : container = 0 ), its label kept
    (None for <unknown>)."""

    def __new__(cls, value, label):
        obj = int.__new__(cls, value)
        obj.label = label
        return obj


class Fields:
    """babeltrace2's text for a structure: { a = 1, b = "x", c = [ [0] = 1, [1] = 2 ] },
    an enum's value ( "L" : container = 1 ) as a Label."""

    def __init__(self, text):
        self.s, self.i = text, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == ' ':
            self.i += 1

    def expect(self, tok):
        self.ws()
        if not self.s.startswith(tok, self.i):
            fail('expected %r at %d of %r' % (tok, self.i, self.s))
        self.i += len(tok)

    def value(self):
        self.ws()
        c = self.s[self.i]
        if c == '{':
            return self.struct()
        if c == '(':
            self.expect('(')
            self.ws()
            if self.s.startswith('<unknown>', self.i):
                self.expect('<unknown>')
                label = None
            else:
                label = self.value()
            self.expect(':')
            self.expect('container')
            self.expect('=')
            value = self.value()
            self.expect(')')
            return Label(value, label)
        if c == '[':
            self.expect('[')
            out = []
            self.ws()
            while not self.s.startswith(']', self.i):
                self.expect('[%d]' % len(out))
                self.expect('=')
                out.append(self.value())
                self.ws()
                if self.s.startswith(',', self.i):
                    self.i += 1
                self.ws()
            self.expect(']')
            return out
        if c == '"':
            self.i += 1
            out = []
            while self.s[self.i] != '"':
                if self.s[self.i] == '\\':
                    self.i += 1
                    out.append({'n': '\n', 't': '\t'}.get(self.s[self.i], self.s[self.i]))
                else:
                    out.append(self.s[self.i])
                self.i += 1
            self.i += 1
            return ''.join(out)
        m = re.compile(r'-?0x[0-9A-Fa-f]+|-?\d+').match(self.s, self.i)
        if not m:
            fail('no value at %d of %r' % (self.i, self.s))
        self.i = m.end()
        return int(m.group(0), 0)

    def struct(self):
        self.expect('{')
        out = {}
        self.ws()
        while not self.s.startswith('}', self.i):
            m = re.compile(r'[A-Za-z_][A-Za-z0-9_]*').match(self.s, self.i)
            if not m:
                fail('no field name at %d of %r' % (self.i, self.s))
            self.i = m.end()
            self.expect('=')
            out[m.group(0)] = self.value()
            self.ws()
            if self.s.startswith(',', self.i):
                self.i += 1
            self.ws()
        self.expect('}')
        return out


def load_bt(path):
    per_cpu = {}
    times = []
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = BT_LINE.match(line)
        if not m:
            fail('not a babeltrace2 event line: %r' % line)
        sec, nsec, system, name, cpu, fields = m.groups()
        ts = int(sec) * 10**9 + int(nsec)
        times.append(ts)
        per_cpu.setdefault(int(cpu), []).append(
            {'ts': ts, 'system': system, 'name': name, 'fields': Fields(fields).struct()})
    if times != sorted(times):
        fail('babeltrace2 printed events out of time order')
    return per_cpu


def load_discarded(path):
    lost = {}
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = BT_DISCARDED.match(line)
        if m:
            lost[int(m.group(2))] = lost.get(int(m.group(2)), 0) + int(m.group(1))
        elif line.strip():
            fail('babeltrace2 said: %r' % line)
    return lost


def load_report(report, raw):
    text = [l.rstrip('\n') for l in open(report, encoding='utf-8', errors='replace')
            if not l.startswith('#')]
    raw = [l.rstrip('\n') for l in open(raw, encoding='utf-8', errors='replace')]
    if len(text) != len(raw):
        fail('%d report lines, %d raw lines' % (len(text), len(raw)))
    per_cpu, lost = {}, {}
    for t, r in zip(text, raw):
        m = LOST.match(t)
        if m:
            if t != r:
                fail('report and raw disagree: %r, %r' % (t, r))
            lost[int(m.group(1))] = lost.get(int(m.group(1)), 0) + int(m.group(2))
            continue
        mt, mr = REPORT_LINE.match(t), RAW_LINE.match(r)
        if not mt or not mr:
            fail('not a report line: %r / %r' % (t, r))
        comm, pid, cpu, flags, sec, usec, rest = mt.groups()
        rpid, rcpu, ns, rawtext = mr.groups()
        if (pid, int(cpu)) != (rpid, int(rcpu)) or (int(ns) + 500) // 1000 != \
                int(sec) * 10**6 + int(usec):
            fail('report and raw disagree: %r, %r' % (t, r))
        per_cpu.setdefault(int(cpu), []).append(
            {'ts': int(ns), 'pid': int(pid), 'flags': flags, 'text': rest, 'raw': rawtext})
    return per_cpu, lost


def bitmask(words):
    """__get_bitmask()'s text of unsigned longs (64-bit): 32-bit groups, highest first."""
    bits = 0
    for i, w in enumerate(words):
        bits |= w << (64 * i)
    groups = len(words) * 2
    return ','.join('%08x' % ((bits >> (32 * g)) & 0xffffffff) for g in reversed(range(groups)))


def expected_text(ev):
    """The report's text (after the time stamp) for a CTF event of the tests' workload."""
    f, name = ev['fields'], ev['name']
    if ev['system'] == 'ftrace':
        return f['text']
    if name == 'demo_worker_start':
        return 'demo_worker_start: name=%s id=%d' % (f['name'], f['id'])
    if name == 'demo_worker_stop':
        return 'demo_worker_stop: worker %s (%d) done' % (f['name'], f['id'])
    if name == 'demo_request':
        method = {0: 'GET', 1: 'PUT', 2: 'DELETE'}[f['method']]
        flags = '|'.join(n for bit, n in ((1, 'CACHED'), (2, 'SYNC'), (4, 'RETRY'))
                         if f['flags'] & bit)
        if f['flags'] & ~7:
            fail('demo_request flags %#x: bits the test does not know' % f['flags'])
        # __print_symbolic(): a CTF enum whose label is the symbol; __print_flags(): an
        # enum of the single flags and the text in flags_str (docs/cli/trev-convert.md).
        if not isinstance(f['method'], Label) or f['method'].label != method:
            fail('demo_request method %r: not the enum label %r' % (f['method'], method))
        single = {1: 'CACHED', 2: 'SYNC', 4: 'RETRY'}.get(f['flags'])
        if not isinstance(f['flags'], Label) or f['flags'].label != single:
            fail('demo_request flags %r: not the enum label %r' % (f['flags'], single))
        if f.get('flags_str') != flags:
            fail('demo_request flags_str %r, not %r' % (f.get('flags_str'), flags))
        return 'demo_request: %s path=%s flags=%s status=%d digest=%s' % (
            method, f['path'], flags, f['status'], ' '.join('%02x' % b for b in f['digest']))
    if name == 'demo_batch':
        if f['lat_len'] != len(f['lat']) or f['cpus_len'] != len(f['cpus']) or \
                f['n'] != len(f['lat']):
            fail('demo_batch lengths: %r' % f)
        # libtraceevent 1.7.1 prints __print_array() as "10 20 30" (docs/cli/trev-report.md).
        return 'demo_batch: n=%d lat=%s cpus=%s' % (
            f['n'], ' '.join(str(x) for x in f['lat']), bitmask(f['cpus']))
    fail('an event this test does not know: %s:%s' % (ev['system'], name))


def main():
    bt = load_bt(sys.argv[1])
    discarded = load_discarded(sys.argv[2])
    rep, lost = load_report(sys.argv[3], sys.argv[4])
    if sorted(bt) != sorted(rep):
        fail('CPUs: babeltrace2 %s, report %s' % (sorted(bt), sorted(rep)))
    n = 0
    for cpu in sorted(rep):
        if len(bt[cpu]) != len(rep[cpu]):
            fail('CPU %d: %d CTF events, %d records' % (cpu, len(bt[cpu]), len(rep[cpu])))
        for b, r in zip(bt[cpu], rep[cpu]):
            where = 'CPU %d, record %d at %d ns' % (cpu, n, r['ts'])
            f = b['fields']
            if b['ts'] != r['ts']:
                fail('%s: CTF time %d' % (where, b['ts']))
            if f['common_pid'] != r['pid']:
                fail('%s: common_pid %d, report %d' % (where, f['common_pid'], r['pid']))
            if r['flags'] != '....' or f['common_flags'] or f['common_preempt_count']:
                fail('%s: flags %r, common_flags %d, common_preempt_count %d' % (
                    where, r['flags'], f['common_flags'], f['common_preempt_count']))
            want = expected_text(b)
            if want != r['text']:
                fail('%s: %s:%s\n  report: %s\n  CTF:    %s' % (
                    where, b['system'], b['name'], r['text'], want))
            # The ftrace events' ip, as --raw prints it (": IP : text", "# IP text").
            if b['system'] == 'ftrace':
                ip = re.match(r'^(?:: ([0-9a-f]+) :|# ([0-9a-f]+) )', r['raw'])
                if not ip or int(ip.group(1) or ip.group(2), 16) != f['ip']:
                    fail('%s: ip %#x, raw %r' % (where, f['ip'], r['raw']))
            n += 1
    if discarded != lost:
        fail('discarded events per CPU: babeltrace2 %r, report %r' % (discarded, lost))
    print('%d events equal, %d discarded (%s)' % (
        n, sum(lost.values()), ', '.join('CPU %d: %d' % kv for kv in sorted(lost.items()))))


main()
