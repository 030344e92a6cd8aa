# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn trev's `trace` text or `trace-cmd report -t` output into comparable lines.

    normalise.py trev FILE | normalise.py report FILE

Each event becomes "TASK-PID [CPU] SECONDS.MICROS: EVENT: TEXT". The known differences
(docs/tracedat.md, "Known differences") are removed:
  - trace-cmd report prints no flags column ("....");
  - the report is read with -t (nanoseconds) and rounded here to the nearest microsecond,
    as the kernel's `trace` (ns2usecs()) and trev's do;
  - it pads the event name to a column, and names the ftrace print/bprint/bputs events
    where the kernel prints only their "function: text";
  - libtraceevent 1.7.1 prints __print_array() as "10 20 30", the kernel as "{0xa,0x14,0x1e}";
  - lost events: the kernel's "CPU:N [LOST M EVENTS]" and trace-cmd's "CPU:N [M EVENTS
    DROPPED]" both become "LOST CPU N: M", listed after the events (the two print them at
    different places: trace-cmd before the first event of the page that carries the count);
  - trace-cmd's "cpus=N" line is left out.
"""
import re
import sys

TREV = re.compile(r'^\s*(.+)-(\d+)\s+\[(\d{3,})\]\s+\S{4}\s+(\d+)\.(\d{6}): ([^:]+): ?(.*)$')
REPORT = re.compile(r'^\s*(.+)-(\d+)\s+\[(\d{3,})\]\s+(\d+)\.(\d{9}): ([^:]+):\s*(.*)$')
ARRAY = re.compile(r'\{(0x[0-9a-f]+(?:,0x[0-9a-f]+)*)\}')
PRINTK = ('print', 'bprint', 'bputs')


def array_decimal(m):
    return ' '.join(str(int(x, 16)) for x in m.group(1).split(','))


LOST_TREV = re.compile(r'^CPU:(\d+) \[LOST (\d+) EVENTS\]$')
LOST_REPORT = re.compile(r'^CPU:(\d+) \[(\d+) EVENTS DROPPED\]$')


def main():
    kind, path = sys.argv[1], sys.argv[2]
    lost = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = (LOST_TREV if kind == 'trev' else LOST_REPORT).match(line)
            if m:
                lost.append('LOST CPU %s: %s' % m.groups())
                continue
            if kind == 'trev':
                if line.startswith('#'):
                    continue
                m = TREV.match(line)
                if not m:
                    sys.exit('normalise.py: not a trace line: %r' % line)
                task, pid, cpu, sec, usec, name, text = m.groups()
                text = ARRAY.sub(array_decimal, text)
            else:
                if line.startswith('cpus='):
                    continue
                m = REPORT.match(line)
                if not m:
                    sys.exit('normalise.py: not a report line: %r' % line)
                task, pid, cpu, sec, nsec, name, text = m.groups()
                us = (int(sec) * 1000000000 + int(nsec) + 500) // 1000
                sec, usec = str(us // 1000000), '%06d' % (us % 1000000)
                if name in PRINTK:
                    name, _, text = text.partition(': ')
            print('%s-%s [%s] %s.%s: %s: %s' % (task.strip(), pid, cpu, sec, usec, name,
                                                text.rstrip()))
    for line in sorted(lost):
        print(line)


main()
