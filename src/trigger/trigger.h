/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event triggers (the kernel's trace_events_trigger.c): the commands of
 * events/<sys>/<ev>/trigger, run in the event's context. What the probe
 * calls is here (through struct trev__event_file_ops, set at start-up: the
 * write path is below the triggers); the commands and their parser are
 * behind it.
 */
#ifndef TREV_TRIGGER_H
#define TREV_TRIGGER_H

struct trev_event_file;

/*
 * trev__triggers_call() - run @file's triggers for one event
 * @rec: the record (its fields assigned), or NULL when the event has no
 *       trigger that needs one (TREV_FILE_FL_TRIGGER_COND clear)
 * Return: the post triggers to run once the record is committed (the
 * kernel's event_trigger_type bits), for trev__triggers_post_call().
 * Context: the event's probe (inside an RCU read section); no allocation,
 * no lock a signal handler could deadlock on.
 */
unsigned int trev__triggers_call(struct trev_event_file *file, void *rec, unsigned int len);

/* Run the post triggers @tt (traceoff, snapshot, ...) after the commit. */
void trev__triggers_post_call(struct trev_event_file *file, unsigned int tt);

#endif /* TREV_TRIGGER_H */
