# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pair trev's trace lines with trace-cmd report's, both normalised (tests/tracedat/normalise.py).

    compare_text.py TRACE_NORM REPORT_NORM DIFF_OUT

Lines are paired in order (one thread fired the events, so both are in time order); lost-event
lines are left out. Prints how many of trev's lines equal their pair, and writes each unequal
pair to DIFF_OUT. A missing report pairs every line with "(no line)".
"""
import sys


def lines(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return [line for line in f if not line.startswith('LOST')]
    except OSError:
        return []


def main():
    trace, report = lines(sys.argv[1]), lines(sys.argv[2])
    equal = 0
    with open(sys.argv[3], 'w', encoding='utf-8') as diff:
        for i, line in enumerate(trace):
            other = report[i] if i < len(report) else '(no line)\n'
            if line == other:
                equal += 1
            else:
                diff.write('- trace:  %s+ report: %s' % (line, other))
    print(equal)


main()
