/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The descriptors objects hand the library, checked and, for an older ABI,
 * translated at registration (docs/events.md, "ABI"). A descriptor of the
 * library's own ABI is used in place; one of ABI 0 gets a library-owned
 * copy in today's layout, which the registry uses instead; one of a newer
 * ABI, or whose header is broken, is refused with a log message and never
 * written to.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/abi_v0.h"
#include "base/log.h"
#include "events/abi.h"
#include "events/events_internal.h"
#include "tracepoint/tracepoint_internal.h"

/* Says which object, which descriptor and why; the registry goes on without it. */
static void abi_refuse(const char *what, const void *desc, int err, unsigned int abi)
{
	const struct trev_abi_hdr *h = desc;
	const char *obj = "?";
	Dl_info info;

	if (dladdr(desc, &info) && info.dli_fname && *info.dli_fname)
		obj = info.dli_fname;
	if (err == -EPROTO)
		trev__log(TREV_LOG_ERR,
			  "%s: %s at %p is of ABI %u; this libtrev (%s) reads ABI 0 to %d: "
			  "not registered (use a newer libtrev)\n",
			  obj, what, desc, abi, TREV_VERSION_STRING, TREV_ABI_VERSION);
	else
		trev__log(TREV_LOG_ERR, "%s: %s at %p has a broken ABI header (ABI %u, size %u): "
			  "not registered\n", obj, what, desc, abi, (unsigned int)h->size);
}

int trev__abi_module(const struct trev_module *mod, struct trev_module *out)
{
	unsigned int abi;
	int ret = trev__abi_of(mod, sizeof(*mod), &abi);

	if (ret == 0 && abi == 0)
		ret = -EINVAL;		/* ABI 0 had no module record */
	if (ret) {
		abi_refuse("module record", mod, ret, abi);
		return ret;
	}
	*out = *mod;
	return 0;
}

/* An ABI 0 event and its class, in today's layout. */
struct abi_shadow {
	struct trev_event_call call;
	struct trev_event_class klass;
};

static struct trev_event_call *abi_shadow_v0(const struct trev_v0_event_call *v0)
{
	const struct trev_v0_event_class *k = v0->klass;
	struct abi_shadow *s;

	if (!k) {
		trev__log(TREV_LOG_ERR, "event %s (ABI 0) has no class: not registered\n",
			  v0->name ? v0->name : "?");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		trev__log(TREV_LOG_ERR, "event %s:%s: cannot register: %s\n", k->system,
			  v0->name, strerror(ENOMEM));
		return NULL;
	}
	s->klass = (struct trev_event_class){
		TREV_ABI_HDR(struct trev_event_class), k->system, k->probe,
		(int (*)(struct trev_event_call *))k->define_fields, k->entry_size
	};
	/* The tracepoint stays the object's: trev__tp_ref() reads either layout. */
	s->call = (struct trev_event_call){
		TREV_ABI_HDR(struct trev_event_call), &s->klass, v0->name,
		(struct trev_tracepoint *)(void *)v0->tp, v0->print_fmt,
		(trev_event_output_fn)v0->output, v0->flags, 0, NULL
	};
	return &s->call;
}

struct trev_event_call *trev__abi_adopt_call(struct trev_event_call *call)
{
	struct trev__tp_ref tp;
	unsigned int abi, kabi = 0;
	int ret;

	ret = trev__abi_of(call, sizeof(*call), &abi);
	if (ret) {
		abi_refuse("event descriptor", call, ret, abi);
		return NULL;
	}
	if (abi == 0) {
		const struct trev_v0_event_call *v0 = (const void *)call;

		if (v0->tp && trev__tp_ref((struct trev_tracepoint *)(void *)v0->tp, &tp))
			return NULL;
		return abi_shadow_v0(v0);
	}
	/* The class and the tracepoint come from the same header as the event. */
	ret = call->klass ? trev__abi_of(call->klass, sizeof(*call->klass), &kabi) : -EINVAL;
	if (!ret && kabi == 0)
		ret = -EINVAL;
	if (ret) {
		abi_refuse("event class descriptor", call->klass ? (const void *)call->klass :
			   (const void *)call, ret, kabi);
		return NULL;
	}
	if (call->tp && trev__tp_ref(call->tp, &tp))
		return NULL;
	return call;
}

void trev__abi_release_call(struct trev_event_call *native, struct trev_event_call *orig)
{
	if (native && native != orig)
		free((struct abi_shadow *)(void *)((char *)native - offsetof(struct abi_shadow, call)));
}

const struct trev_eval_map *trev__abi_adopt_eval(const struct trev_eval_map *map)
{
	const struct trev_v0_eval_map *v0 = (const void *)map;
	struct trev_eval_map *copy;
	unsigned int abi;
	int ret = trev__abi_of(map, sizeof(*map), &abi);

	if (ret) {
		abi_refuse("TRACE_DEFINE_ENUM descriptor", map, ret, abi);
		return NULL;
	}
	if (abi != 0)
		return map;
	copy = malloc(sizeof(*copy));
	if (!copy)
		return NULL;
	*copy = (struct trev_eval_map){ TREV_ABI_HDR(struct trev_eval_map), v0->system,
					v0->eval_string, v0->eval_value };
	return copy;
}

void trev__abi_release_eval(const struct trev_eval_map *native, const struct trev_eval_map *orig)
{
	if (native && native != orig)
		free((void *)native);
}
