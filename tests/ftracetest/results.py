# SPDX-License-Identifier: LGPL-2.1-or-later
"""ftracetest's results, case by case, with the class of each that does not pass.

    results.py LOGDIR TESTDIR CLASSES RESULTS SECONDS

LOGDIR is ftracetest's -k -l directory: ftracetest.log has a line "[N] description [RESULT]"
per case, and N-NAME-log.XXXXXX its log, whose first line names the file it ran
("execute: PATH" or "execute (instance) : PATH"). Writes RESULTS, one line "CASE RESULT" per
case in ftracetest's order (CASE: the path under TESTDIR, " (instance)" added for the second
run of a case flagged instance), and prints the counts and the cases that do not pass, by
class. CLASSES has lines "PATTERN<TAB>CLASS<TAB>REASON": the first whose shell pattern matches
the case (without " (instance)", unless the pattern has it) classifies it.
"""
import fnmatch
import glob
import os
import re
import sys

RESULTS = ['PASS', 'FAIL', 'UNSUPPORTED', 'UNRESOLVED', 'XFAIL', 'UNTESTED', 'UNDEFINED']
INSTANCE = ' (instance)'


def cases(logdir, testdir):
    """[(case, result)] in ftracetest's order."""
    names = {}
    for path in glob.glob(os.path.join(logdir, '*-log.*')):
        num = int(os.path.basename(path).split('-', 1)[0])
        with open(path, errors='replace') as f:
            first = f.readline()
        m = re.match(r'execute( \(instance\) )?: (\S+)', first)
        if not m:
            continue
        name = os.path.relpath(m.group(2), testdir)
        names[num] = name + (INSTANCE if m.group(1) else '')
    out = []
    with open(os.path.join(logdir, 'ftracetest.log'), errors='replace') as f:
        for line in f:
            m = re.match(r'\[(\d+)\].*\[(\w+)\]\s*$', line)
            if m:
                num = int(m.group(1))
                out.append((names.get(num, '#%d' % num), m.group(2)))
    return out


def load_classes(path):
    rules = []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            pattern, cls, reason = line.split('\t', 2)
            rules.append((pattern, cls, reason.strip()))
    return rules


def classify(rules, case):
    for pattern, cls, reason in rules:
        name = case if INSTANCE in pattern else case.replace(INSTANCE, '')
        if fnmatch.fnmatchcase(name, pattern):
            return cls, reason
    return 'unclassified', 'no line in classes.txt'


def main():
    logdir, testdir, classes, results, seconds = sys.argv[1:6]
    got = cases(logdir, testdir)
    rules = load_classes(classes)
    with open(results, 'w') as f:
        for case, result in got:
            f.write('%s %s\n' % (case, result))
    counts = {r: 0 for r in RESULTS}
    for _, result in got:
        counts[result if result in counts else 'UNDEFINED'] += 1
    print("ftracetest on trev's tree: %d cases in %s s" % (len(got), seconds))
    print('  '.join('%s %d' % (r, counts[r]) for r in RESULTS))
    by_class = {}
    for case, result in got:
        # XFAIL is a case's expected outcome (ftracetest counts it as no failure):
        # trigger-action-hist-xfail.tc ends so when both its commands are refused.
        if result in ('PASS', 'XFAIL'):
            continue
        cls, reason = classify(rules, case)
        by_class.setdefault(cls, []).append((result, case, reason))
    order = ['kernel', 'trev', 'harness', 'unclassified']
    for cls in order + sorted(set(by_class) - set(order)):
        if cls not in by_class:
            continue
        print('not passing, %s (%d):' % (cls, len(by_class[cls])))
        for result, case, reason in by_class[cls]:
            print('  %-11s %-58s %s' % (result, case, reason))


if __name__ == '__main__':
    main()
