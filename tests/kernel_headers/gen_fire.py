# SPDX-License-Identifier: LGPL-2.1-or-later
"""Generate the calls that fire every event of one kernel event header.

    gen_fire.py PREPROCESSED STANDIN_HEADER > fire.h

PREPROCESSED is tu.c run through the preprocessor with KH_FIRE_STAGE defined
(ref/linux/tracepoint.h), where every event of the header (after __kh_header_start__) that
gets a format left a marker:

    __kh_event__ name ( proto ) __kh_end__

Each parameter of the proto gets a value:
  - a pointer (or array) parameter points at a zeroed, 64-byte aligned block of KH_OBJ_SIZE
    bytes, large enough for any stand-in object; a char pointer's block holds the parameter's
    name as a string; a const char pointer is tracepoint_string() of the name instead, as the
    kernel's callers pass to the events that record the pointer and print it with %s (rcu's
    TPS(), the IPI reasons, suspend_resume's actions): printk_formats then lists it, so that
    trace-cmd prints the string, not its address; a pointer to pointers points at an array of such blocks; when the
    stand-in header defines kh_init_<struct tag or typedef>(), it is called on the block first
    (it points the object's members at other stand-in objects where TP_fast_assign follows them);
  - a function pointer is NULL;
  - anything else (integers, enums, bool, structs by value) is KH_SCALAR(type, k): zero bytes
    but the first, k, the parameter's position (1, 2, ...; bool: 1).
The result defines kh_fire_all(), which calls trace_<name>() once per event, in header order.
"""
import re
import sys

MARK = re.compile(r'__kh_event__\s+(\w+)\s*\((.*?)\)\s*__kh_end__', re.S)
NAME = re.compile(r'(\w+)\s*((?:\[[^\]]*\]\s*)*)$')
QUALIFIERS = {'const', 'volatile', 'restrict', '__restrict', 'struct', 'union', 'enum'}


def split_params(proto):
    """Split at commas outside parentheses and brackets."""
    out, depth, cur = [], 0, ''
    for c in proto:
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        if c == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return [p for p in out if p and p != 'void']


def base_name(type_text):
    """The struct tag or typedef name a pointer points at: its last word that is no qualifier."""
    words = [w for w in re.findall(r'\w+', type_text) if w not in QUALIFIERS]
    return words[-1] if words else 'void'


def main():
    text = open(sys.argv[1], encoding='utf-8').read()
    # Events of a header read before this one (tu.c's KH_BEFORE) are not this header's.
    text = text[text.index('__kh_header_start__'):]
    hooks = set(re.findall(r'\bkh_init_(\w+)\s*\(', open(sys.argv[2], encoding='utf-8').read()))
    decls, calls, seen = [], [], set()
    nobj = 0
    for name, proto in MARK.findall(text):
        if name in seen:
            continue
        seen.add(name)
        proto = ' '.join(proto.split())
        body, args = [], []
        for k, param in enumerate(split_params(proto), 1):
            if '(*' in param.replace(' ', ''):
                args.append('0')
                continue
            m = NAME.search(param)
            if not m:
                sys.exit('gen_fire.py: %s: cannot read parameter %r' % (name, param))
            pname, arrays = m.group(1), m.group(2)
            ptype = param[:m.start()].strip()
            depth = ptype.count('*') + arrays.count('[')
            if depth == 0:
                scalar = re.sub(r'\b(const|volatile)\b', '', ptype).strip()
                args.append('KH_SCALAR(%s, %d)' % (scalar, 1 if scalar in ('bool', '_Bool') else k))
                continue
            nobj += 1
            obj = 'kh_obj_%d' % nobj
            base = base_name(ptype.replace('*', ' '))
            if depth >= 2:
                decls.append('static void *%s[KH_OBJ_PTRS];' % obj)
                body.append('kh_fill_ptrs(%s);' % obj)
            elif base == 'char' and re.search(r'\bconst\b', ptype):
                # As the kernel's callers pass to the events that record the pointer.
                nobj -= 1
                args.append('tracepoint_string("%s")' % pname)
                continue
            elif base == 'char':
                decls.append('static char %s[KH_OBJ_SIZE] __attribute__((aligned(64))) = "%s";'
                             % (obj, pname))
            else:
                decls.append('static unsigned char %s[KH_OBJ_SIZE] __attribute__((aligned(64)));'
                             % obj)
                if base in hooks:
                    tag = ptype.replace('*', ' ')
                    struct = 'struct ' if re.search(r'\bstruct\b', tag) else ''
                    body.append('kh_init_%s((%s%s *)%s);' % (base, struct, base, obj))
            cast = ptype if not arrays else ptype + ' *'
            args.append('(%s)(void *)%s' % (cast, obj))
        calls.append('\t/* %s(%s) */' % (name, proto))
        calls.extend('\t' + line for line in body)
        calls.append('\ttrace_%s(%s);' % (name, ', '.join(args)))
    print('/* Generated by gen_fire.py: every event of the header, fired once. */')
    print('\n'.join(decls))
    print('void kh_fire_all(void);')
    print('void kh_fire_all(void)\n{')
    print('\n'.join(calls))
    print('}')
    print('/* events: %d */' % len(seen))


main()
