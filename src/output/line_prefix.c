/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The prefix of a `trace` line, for the library's text and trev report (line_prefix.h). */
#include <stdbool.h>
#include <string.h>

#include "output/fmt_num.h"
#include "output/line_prefix.h"

/* irqs-off, need-resched, hardirq/softirq, preempt-depth: the kernel's letters. */
char *trev__line_prefix_lat(char *p, unsigned int flags, unsigned int preempt)
{
	bool nmi = flags & TREV_FLAG_NMI, hard = flags & TREV_FLAG_HARDIRQ;
	bool soft = flags & TREV_FLAG_SOFTIRQ;

	*p++ = (flags & TREV_FLAG_IRQS_OFF) ? 'd' : (flags & TREV_FLAG_IRQS_NOSUPPORT) ? 'X' : '.';
	switch (flags & (TREV_FLAG_NEED_RESCHED | TREV_FLAG_PREEMPT_RESCHED)) {
	case TREV_FLAG_NEED_RESCHED | TREV_FLAG_PREEMPT_RESCHED:
		*p++ = 'N';
		break;
	case TREV_FLAG_NEED_RESCHED:
		*p++ = 'n';
		break;
	case TREV_FLAG_PREEMPT_RESCHED:
		*p++ = 'p';
		break;
	default:
		*p++ = '.';
		break;
	}
	*p++ = nmi && hard ? 'Z' : nmi ? 'z' : hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
	*p++ = (preempt & 0xf) ? "0123456789abcdef"[preempt & 0xf] : '.';
	return p;
}

size_t trev__line_prefix(char *buf, const struct trev_line_prefix *lp)
{
	size_t len = strnlen(lp->comm, 16);
	char *p = buf, *start;

	memset(p, ' ', 16);
	memcpy(p + 16 - len, lp->comm, len);
	p += 16;
	*p++ = '-';
	start = p;
	if (lp->pid < 0) {
		*p++ = '-';
		p = fmt_udec(p, (unsigned long long)-(long long)lp->pid, 0, ' ');
	} else {
		p = fmt_udec(p, (unsigned long long)lp->pid, 0, ' ');
	}
	while (p - start < 5)
		*p++ = ' ';
	*p++ = ' ';
	if (lp->show & TREV_PREFIX_TGID) {
		*p++ = '(';
		p = fmt_udec(p, (unsigned long long)(unsigned int)lp->tgid, 7, ' ');
		*p++ = ')';
		*p++ = ' ';
	}
	*p++ = '[';
	p = fmt_udec(p, lp->cpu, 3, '0');
	*p++ = ']';
	*p++ = ' ';
	if (lp->show & TREV_PREFIX_LAT)
		p = trev__line_prefix_lat(p, lp->flags, lp->preempt);
	*p++ = ' ';
	if (lp->show & TREV_PREFIX_COUNTER) {
		p = fmt_udec(p, lp->ts, 12, ' ');	/* a count, not a time */
	} else {
		unsigned long long usecs = (lp->ts + 500) / 1000;

		p = fmt_udec(p, usecs / 1000000, 5, ' ');
		*p++ = '.';
		p = fmt_udec(p, usecs % 1000000, 6, '0');
	}
	*p++ = ':';
	*p++ = ' ';
	return (size_t)(p - buf);
}
