/*
 * kineto_events.c - the yajl callbacks that walk a Kineto trace and keep,
 * per event of a kind the reader uses, a compact record (kineto.h): cpu_ops
 * with their shapes, dtypes and concrete inputs, runtime launches, GPU
 * kernels, copies and memsets, nn.Module calls and ProfilerStep marks; and
 * the top-level deviceProperties and baseTimeNanoseconds. Everything else
 * is skipped as it streams by (an event's "cat" comes before its "args", so
 * an unused event's arguments cost only their tokens). The collective args
 * of communication kernels and cpu_ops (SPEC 19) go to side arrays
 * (kineto.h, struct kin_cargs), so a compute kernel costs nothing more.
 */
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "read/kineto/kineto.h"
#include "read/kineto/kineto_parse.h"

/* What the innermost container being read is. */
enum {
	C_NONE, C_TOP, C_EVENTS, C_EVENT, C_ARGS, C_DIMS, C_LIST, C_DEVPROPS, C_DEVPROP, C_RANKS, C_DIST, C_DONE
};

/* What the value after a key is for. */
enum {
	K_OTHER,
	K_EVENTS, K_DEVPROPS, K_BASE, K_DIST,                         /* top level */
	K_RANK, K_WORLD,                                              /* distributedInfo */
	K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ARGS, K_FID, /* an event (K_FID: a flow's id) */
	K_EXT, K_CORR, K_DEVICE, K_DIMS, K_TYPES, K_CONCRETE, K_COLL, /* its args */
	K_KFLOP,                                                      /* Inductor's kernel_flop */
	K_IN, K_OUT, K_DTYPE, K_GSIZE, K_PGNAME, K_PGRANKS,           /* its collective args */
	K_ID, K_DEVNAME                                               /* a deviceProperties entry */
};

/* Event kinds by "cat". */
enum {
	CAT_UNSET, CAT_OTHER, CAT_CPU_OP, CAT_USER, CAT_GPU_USER, CAT_PYTHON, CAT_KERNEL, CAT_RUNTIME, CAT_MEMCPY,
	CAT_FLOW,   /* ac2g, async_cpu_to_gpu: launch -> kernel flows */
	CAT_RANGE   /* cuda_profiler_range: CUPTI range profiling, counted only */
};

enum { V_UNKNOWN, V_SKIP, V_KEEP };

/* JSON value types as the callbacks see them. */
enum { T_NULL, T_BOOL, T_NUM, T_STR, T_MAP, T_ARRAY };

#define KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && !memcmp((k), (lit), sizeof(lit) - 1))

static int top_key(const unsigned char *k, size_t n)
{
	if (KEY_IS(k, n, "traceEvents"))
		return K_EVENTS;
	if (KEY_IS(k, n, "deviceProperties"))
		return K_DEVPROPS;
	if (KEY_IS(k, n, "baseTimeNanoseconds"))
		return K_BASE;
	if (KEY_IS(k, n, "distributedInfo"))
		return K_DIST;
	return K_OTHER;
}

static int event_key(const unsigned char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'i' && k[1] == 'd')
			return K_FID;
		return k[0] == 'p' && k[1] == 'h' ? K_PH : (k[0] == 't' && k[1] == 's' ? K_TS : K_OTHER);
	case 3:
		if (!memcmp(k, "cat", 3))
			return K_CAT;
		if (!memcmp(k, "pid", 3))
			return K_PID;
		if (!memcmp(k, "tid", 3))
			return K_TID;
		return !memcmp(k, "dur", 3) ? K_DUR : K_OTHER;
	case 4: return !memcmp(k, "name", 4) ? K_NAME : (!memcmp(k, "args", 4) ? K_ARGS : K_OTHER);
	default: return K_OTHER;
	}
}

static int arg_key(const unsigned char *k, size_t n)
{
	if (KEY_IS(k, n, "External id") || KEY_IS(k, n, "external id"))
		return K_EXT;
	if (KEY_IS(k, n, "correlation"))
		return K_CORR;
	if (KEY_IS(k, n, "device"))
		return K_DEVICE;
	if (KEY_IS(k, n, "Input Dims"))
		return K_DIMS;
	if (KEY_IS(k, n, "Input type"))
		return K_TYPES;
	if (KEY_IS(k, n, "Concrete Inputs"))
		return K_CONCRETE;
	if (KEY_IS(k, n, "Collective name"))
		return K_COLL;
	if (KEY_IS(k, n, "In msg nelems"))
		return K_IN;
	if (KEY_IS(k, n, "Out msg nelems"))
		return K_OUT;
	if (KEY_IS(k, n, "dtype"))
		return K_DTYPE;
	if (KEY_IS(k, n, "Group size"))
		return K_GSIZE;
	if (KEY_IS(k, n, "Process Group Name"))
		return K_PGNAME;
	if (KEY_IS(k, n, "Process Group Ranks"))
		return K_PGRANKS;
	if (KEY_IS(k, n, "kernel_flop"))
		return K_KFLOP;
	return K_OTHER;
}

static int ends_with(const char *s, size_t n, const char *lit, size_t k)
{
	return n >= k && !memcmp(s + n - k, lit, k);
}

/* Current names first, then those of the first Kineto releases. */
static int cat_of(const char *s, size_t n)
{
	if (KEY_IS(s, n, "cpu_op") || KEY_IS(s, n, "Operator"))
		return CAT_CPU_OP;
	if (KEY_IS(s, n, "kernel") || KEY_IS(s, n, "Kernel"))
		return CAT_KERNEL;
	if (KEY_IS(s, n, "gpu_memcpy") || KEY_IS(s, n, "gpu_memset") || KEY_IS(s, n, "Memcpy") ||
	    KEY_IS(s, n, "Memset"))
		return CAT_MEMCPY;
	if (ends_with(s, n, "_runtime", 8) || ends_with(s, n, "_driver", 7) || KEY_IS(s, n, "Runtime"))
		return CAT_RUNTIME;
	if (KEY_IS(s, n, "user_annotation"))
		return CAT_USER;
	if (KEY_IS(s, n, "gpu_user_annotation"))
		return CAT_GPU_USER;
	if (KEY_IS(s, n, "python_function"))
		return CAT_PYTHON;
	if (KEY_IS(s, n, "ac2g") || KEY_IS(s, n, "async_cpu_to_gpu"))
		return CAT_FLOW;
	if (KEY_IS(s, n, "cuda_profiler_range"))
		return CAT_RANGE;
	return CAT_OTHER;
}

/* ---- the event being read ---- */

static void event_reset(struct kin_event *ev)
{
	struct sbuf name = ev->name, dims = ev->dims, types = ev->types, concrete = ev->concrete, coll = ev->coll;
	struct sbuf dtype = ev->dtype, pgname = ev->pgname, ranks = ev->ranks;
	memset(ev, 0, sizeof(*ev));
	ev->name = name;
	ev->dims = dims;
	ev->types = types;
	ev->concrete = concrete;
	ev->coll = coll;
	ev->dtype = dtype;
	ev->pgname = pgname;
	ev->ranks = ranks;
	ev->in_n = ev->out_n = ev->gsize = ev->n_ranks = -1;
	sbuf_reset(&ev->name); /* an event without a name has the empty one */
}

/* As soon as ph, cat and (for annotations) the name tell: keep or skip.
 * Skipping only saves work; event_end decides from what was read. */
static void decide(struct kin_event *ev)
{
	int64_t n;
	if (ev->verdict != V_UNKNOWN)
		return;
	/* flows are "s"/"f" events; every other kind read is an "X" span */
	if (ev->has_ph && !ev->ph_x && !(ev->ph_flow && (ev->cat == CAT_UNSET || ev->cat == CAT_FLOW))) {
		ev->verdict = V_SKIP;
		return;
	}
	switch (ev->cat) {
	case CAT_UNSET: return;
	case CAT_OTHER: case CAT_RANGE: ev->verdict = V_SKIP; return;
	case CAT_FLOW:
		if (ev->has_ph)
			ev->verdict = ev->ph_flow ? V_KEEP : V_SKIP;
		return;
	case CAT_CPU_OP: case CAT_KERNEL: case CAT_RUNTIME: case CAT_MEMCPY:
		if (ev->has_ph)
			ev->verdict = V_KEEP;
		return;
	default: break;
	}
	if (!ev->has_name)
		return;
	if (ev->cat == CAT_PYTHON ? !opmfu_kineto_is_module(ev->name.buf, ev->name.len)
				  : !opmfu_kineto_step(ev->name.buf, ev->name.len, &n))
		ev->verdict = V_SKIP;
	else if (ev->has_ph)
		ev->verdict = V_KEEP;
}

static int nomem(struct kin_parse *p)
{
	return opmfu_json_stop(&p->json, OPMFU_ERR_NOMEM, "out of memory reading the trace");
}

static int event_scalar(struct kin_parse *p, int is_string, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;

	switch (p->key) {
	case K_PH:
		ev->has_ph = 1;
		ev->ph_x = is_string && n == 1 && s[0] == 'X';
		ev->ph_flow = is_string && n == 1 ? (s[0] == 's' ? 1 : s[0] == 'f' ? 2 : 0) : 0;
		ev->ph_c = is_string && n == 1 && s[0] == 'C';
		break;
	case K_CAT:
		ev->cat = is_string ? cat_of(s, n) : CAT_OTHER;
		break;
	case K_NAME:
		sbuf_reset(&ev->name);
		if (is_string)
			sbuf_add(&ev->name, s, n);
		if (ev->name.oom)
			return nomem(p);
		ev->has_name = 1;
		break;
	case K_PID:
		ev->pid_ok = !is_string && !opmfu_kineto_int(s, n, &ev->pid);
		return 1;
	case K_TID:
		ev->tid_ok = !is_string && !opmfu_kineto_int(s, n, &ev->tid);
		return 1;
	case K_TS:
		ev->ts_ok = !is_string && !opmfu_kineto_us_to_ns(s, n, &ev->ts);
		return 1;
	case K_DUR:
		ev->dur_ok = !is_string && !opmfu_kineto_us_to_ns(s, n, &ev->dur);
		return 1;
	case K_FID:
		ev->has_id = !is_string && !opmfu_kineto_int(s, n, &ev->id);
		return 1;
	default:
		return 1;
	}
	decide(ev);
	return 1;
}

/* ---- collective args (SPEC 19) ---- */

/* Appends s[0..n) to sb, cut so that sb holds at most KIN_COLL_TEXT_MAX
 * bytes (and not inside a UTF-8 sequence). */
static void add_capped(struct sbuf *sb, const char *s, size_t n)
{
	size_t room = sb->len < KIN_COLL_TEXT_MAX ? KIN_COLL_TEXT_MAX - sb->len : 0;
	if (n > room) {
		n = room;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	sbuf_add(sb, s, n);
}

/* A count the trace gives as an integer (a JSON number or a string of one):
 * the value when it is >= 0, else -1. */
static int64_t count_of(const char *s, size_t n)
{
	int64_t v;
	return !opmfu_kineto_int(s, n, &v) && v >= 0 ? v : -1;
}

/* The integers in a ranks list given as text ("[0, 1, 2, 3]"): its digit
 * runs, up to KIN_COLL_MAX_RANKS + 1. */
static int64_t ranks_in_text(const char *s, size_t n)
{
	int64_t k = 0;
	size_t i;
	for (i = 0; i < n && k <= KIN_COLL_MAX_RANKS; i++)
		k += s[i] >= '0' && s[i] <= '9' && (i == 0 || s[i - 1] < '0' || s[i - 1] > '9');
	return k;
}

static int set_text(struct kin_parse *p, struct sbuf *sb, int *has, const char *s, size_t n)
{
	sbuf_reset(sb);
	add_capped(sb, s, n);
	if (sb->oom)
		return nomem(p);
	*has = 1;
	p->ev.has_cargs = 1;
	return 1;
}

static int coll_scalar(struct kin_parse *p, int is_string, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;
	int64_t v;

	switch (p->key) {
	case K_IN:
		ev->in_n = count_of(s, n);
		break;
	case K_OUT:
		ev->out_n = count_of(s, n);
		break;
	case K_GSIZE:
		v = count_of(s, n);
		ev->gsize = v >= 1 && v <= KIN_COLL_MAX_RANKS ? v : -1;
		break;
	case K_DTYPE:
		return is_string ? set_text(p, &ev->dtype, &ev->has_dtype, s, n) : 1;
	case K_PGNAME:
		/* a name is text; some writers give a number */
		return set_text(p, &ev->pgname, &ev->has_pgname, s, n);
	case K_PGRANKS:
		if (!is_string)
			return 1;
		ev->n_ranks = ranks_in_text(s, n);
		return set_text(p, &ev->ranks, &ev->has_ranks, s, n);
	default:
		return 1;
	}
	ev->has_cargs = 1;
	return 1;
}

/* An entry of a "Process Group Ranks" list: counted, and added to the
 * list's text ("[0, 1, 2]", as the string form writes it); an entry that is
 * a list or an object is counted and left out. */
static int ranks_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;

	if (ev->n_ranks <= KIN_COLL_MAX_RANKS)
		ev->n_ranks++;
	if (type == T_MAP || type == T_ARRAY) {
		p->skip = 1;
		return 1;
	}
	if (ev->n_ranks > 1)
		add_capped(&ev->ranks, ", ", 2);
	add_capped(&ev->ranks, s, n);
	return ev->ranks.oom ? nomem(p) : 1;
}

static int arg_scalar(struct kin_parse *p, int is_string, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;

	switch (p->key) {
	case K_EXT:
		ev->has_ext = !is_string && !opmfu_kineto_int(s, n, &ev->ext);
		break;
	case K_CORR:
		ev->has_corr = !is_string && !opmfu_kineto_int(s, n, &ev->corr);
		break;
	case K_DEVICE:
		ev->has_device = !is_string && !opmfu_kineto_int(s, n, &ev->device);
		break;
	case K_COLL:
		if (is_string) {
			sbuf_reset(&ev->coll);
			sbuf_add(&ev->coll, s, n);
			if (ev->coll.oom)
				return nomem(p);
			ev->has_coll = 1;
		}
		break;
	case K_DIMS:
		ev->has_dims = ev->dims_bad = 1; /* not a list: shapes unknown */
		break;
	case K_KFLOP:
		ev->has_kflop = !is_string && !opmfu_kineto_int(s, n, &ev->kflop) && ev->kflop > 0;
		break;
	default:
		return coll_scalar(p, is_string, s, n);
	}
	return 1;
}

/* ---- Input Dims, Input type, Concrete Inputs ---- */

/* A dim: plain digits that fit in int64 (model/shape.h). */
static int dim_ok(const char *s, size_t n)
{
	size_t i;
	if (n == 0 || n > 18)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * "Input Dims" [[16,559,1024],[3072,1024],[]] becomes "16,559,1024;3072,1024;":
 * one entry per argument, so that positions stay those of "Input type" and
 * "Concrete Inputs". A list of tensors (TensorList) is one empty entry. sub:
 * 1 in the outer list, 2 in an argument, 3+ inside a list of tensors.
 */
static int dims_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;

	if (type == T_ARRAY) {
		if (p->sub == 1) {
			if (ev->n_items++)
				sbuf_add(&ev->dims, ";", 1);
			if (ev->dims.oom)
				return nomem(p);
			ev->arg_dims = 0;
			ev->arg_list = 0;
		} else if (p->sub == 2) {
			if (ev->arg_dims)
				ev->dims_bad = 1;
			ev->arg_list = 1;
		}
		p->sub++;
		return 1;
	}
	if (type == T_MAP) {
		ev->dims_bad |= p->sub <= 2;
		p->skip = 1;
		return 1;
	}
	if (p->sub >= 3)
		return 1;
	if (p->sub == 1 || ev->arg_list || type != T_NUM || !dim_ok(s, n)) {
		ev->dims_bad = 1;
		return 1;
	}
	if (ev->arg_dims++)
		sbuf_add(&ev->dims, ",", 1);
	sbuf_add(&ev->dims, s, n);
	return ev->dims.oom ? nomem(p) : 1;
}

/* Appends an entry of a string list, with sep kept out of it. */
static void list_add(struct sbuf *sb, char sep, int first, const char *s, size_t n)
{
	size_t i, from = sb->len;
	if (!first)
		sbuf_add(sb, &sep, 1);
	sbuf_add(sb, s, n);
	if (sb->oom)
		return;
	for (i = from + !first; i < sb->len; i++)
		if (sb->buf[i] == sep)
			sb->buf[i] = ' ';
}

/* "Input type" joined by ';', "Concrete Inputs" by OPMFU_ATTR_SEP. An entry
 * that is a list or an object is left empty. */
static int list_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;
	int types = p->key == K_TYPES;
	struct sbuf *sb = types ? &ev->types : &ev->concrete;

	if (type == T_MAP || type == T_ARRAY) {
		p->skip = 1;
		s = "";
		n = 0;
	} else if (type == T_NULL) {
		s = "";
		n = 0;
	}
	list_add(sb, types ? ';' : OPMFU_ATTR_SEP, ev->n_items++ == 0, s, n);
	return sb->oom ? nomem(p) : 1;
}

/* ---- values by where they are ---- */

static int top_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	if (p->key == K_EVENTS && type == T_ARRAY) {
		p->has_events = 1;
		p->ctx = C_EVENTS;
	} else if (p->key == K_DEVPROPS && type == T_ARRAY) {
		p->ctx = C_DEVPROPS;
	} else if (p->key == K_DIST && type == T_MAP) {
		p->ctx = C_DIST;
	} else if (p->key == K_BASE && type == T_NUM) {
		int64_t v;
		if (!opmfu_kineto_int(s, n, &v))
			p->base_ns = v;
	} else if (type == T_MAP || type == T_ARRAY) {
		p->skip = 1;
	}
	return 1;
}

static int event_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;

	if (type == T_MAP || type == T_ARRAY) {
		/* annotations and modules need nothing of their args */
		if (p->key == K_ARGS && type == T_MAP && ev->verdict != V_SKIP &&
		    (ev->cat == CAT_UNSET || ev->cat == CAT_CPU_OP || ev->cat == CAT_KERNEL || ev->cat == CAT_RUNTIME ||
		     ev->cat == CAT_MEMCPY))
			p->ctx = C_ARGS;
		else
			p->skip = 1;
		return 1;
	}
	return ev->verdict == V_SKIP ? 1 : event_scalar(p, type == T_STR, s, n);
}

static int arg_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	struct kin_event *ev = &p->ev;

	if (type == T_ARRAY && p->key == K_DIMS) {
		ev->has_dims = 1;
		ev->dims_bad = 0;
		ev->n_items = 0;
		sbuf_reset(&ev->dims);
		p->ctx = C_DIMS;
		p->sub = 1;
	} else if (type == T_ARRAY && (p->key == K_TYPES || p->key == K_CONCRETE)) {
		struct sbuf *sb = p->key == K_TYPES ? &ev->types : &ev->concrete;
		*(p->key == K_TYPES ? &ev->has_types : &ev->has_concrete) = 1;
		ev->n_items = 0;
		sbuf_reset(sb);
		p->ctx = C_LIST;
	} else if (type == T_ARRAY && p->key == K_PGRANKS) {
		ev->has_ranks = ev->has_cargs = 1;
		ev->n_ranks = 0;
		sbuf_reset(&ev->ranks);
		sbuf_add(&ev->ranks, "[", 1);
		p->ctx = C_RANKS;
	} else if (type == T_MAP || type == T_ARRAY) {
		if (p->key == K_DIMS)
			ev->has_dims = ev->dims_bad = 1;
		p->skip = 1;
	} else {
		return arg_scalar(p, type == T_STR, s, n);
	}
	return 1;
}

static int devprop_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	if (type == T_MAP || type == T_ARRAY) {
		p->skip = 1;
	} else if (p->key == K_ID && type == T_NUM) {
		p->cur_dev.has_id = !opmfu_kineto_int(s, n, &p->cur_dev.id);
	} else if (p->key == K_DEVNAME && type == T_STR) {
		size_t c = n < sizeof(p->cur_dev.name) - 1 ? n : sizeof(p->cur_dev.name) - 1;
		memcpy(p->cur_dev.name, s, c);
		p->cur_dev.name[c] = '\0';
	}
	return 1;
}

/* distributedInfo.rank and .world_size, wherever the object is in the file
 * (the probe sees only the file's head, kineto_probe.c) */
static int dist_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	int64_t v;
	if (type == T_MAP || type == T_ARRAY)
		p->skip = 1;
	else if ((p->key == K_RANK || p->key == K_WORLD) && type == T_NUM && !opmfu_kineto_int(s, n, &v) && v >= 0 &&
		 v <= 0x7fffffff)
		*(p->key == K_RANK ? &p->rank : &p->world) = v;
	return 1;
}

static int on_value(struct kin_parse *p, int type, const char *s, size_t n)
{
	if (p->skip) {
		p->skip += type == T_MAP || type == T_ARRAY;
		return 1;
	}
	switch (p->ctx) {
	case C_NONE:
		if (type != T_MAP)
			return opmfu_json_stop(&p->json, OPMFU_ERR_FORMAT,
					       "not a PyTorch profiler trace: the JSON text is not an object");
		p->ctx = C_TOP;
		p->top_object = 1;
		return 1;
	case C_TOP: return top_value(p, type, s, n);
	case C_EVENTS:
		if (type == T_MAP) {
			event_reset(&p->ev);
			p->ctx = C_EVENT;
		} else if (type == T_ARRAY) {
			p->skip = 1;
		}
		return 1;
	case C_EVENT: return event_value(p, type, s, n);
	case C_ARGS: return arg_value(p, type, s, n);
	case C_DIMS: return dims_value(p, type, s, n);
	case C_LIST: return list_value(p, type, s, n);
	case C_RANKS: return ranks_value(p, type, s, n);
	case C_DEVPROPS:
		if (type == T_MAP) {
			memset(&p->cur_dev, 0, sizeof(p->cur_dev));
			p->ctx = C_DEVPROP;
		} else if (type == T_ARRAY) {
			p->skip = 1;
		}
		return 1;
	case C_DEVPROP: return devprop_value(p, type, s, n);
	case C_DIST: return dist_value(p, type, s, n);
	default: return 1;
	}
}

/* ---- keeping an event ---- */

static int thread_eq(const void *probe, uint32_t id)
{
	const struct kin_parse *p = *(const struct kin_parse *const *)probe;
	return p->threads[id].pid == p->ev.pid && p->threads[id].tid == p->ev.tid;
}

/* The event's (pid, tid) as a dense index, KIN_NONE when either is not an
 * integer. Returns 0, or -1 when out of memory. */
static int thread_of(struct kin_parse *p, uint32_t *out)
{
	const struct kin_parse *self = p;
	uint32_t id;

	*out = KIN_NONE;
	if (!p->ev.pid_ok || !p->ev.tid_ok)
		return 0;
	/* events come in runs of a thread (an nsys table's rows too) */
	if (p->n_threads && p->threads[p->last_thread].pid == p->ev.pid && p->threads[p->last_thread].tid == p->ev.tid) {
		*out = p->last_thread;
		return 0;
	}
	if (p->n_threads >= KIN_NONE - 1 || OPMFU_GROW(p->threads, p->cap_threads, p->n_threads + 1))
		return -1;
	id = opmfu_idtab_get(&p->thread_tab, opmfu_mix64((uint64_t)p->ev.pid * 0x9E3779B97F4A7C15ULL ^
							  (uint64_t)p->ev.tid),
			     thread_eq, &self, (uint32_t)p->n_threads);
	if (id == OPMFU_IDTAB_NONE)
		return -1;
	if (id == p->n_threads) {
		p->threads[id].pid = p->ev.pid;
		p->threads[id].tid = p->ev.tid;
		p->n_threads++;
	}
	*out = p->last_thread = id;
	return 0;
}

int opmfu_kin_thread(struct kin_parse *p, int64_t pid, int64_t tid, uint32_t *out)
{
	p->ev.pid = pid;
	p->ev.tid = tid;
	p->ev.pid_ok = p->ev.tid_ok = 1;
	return thread_of(p, out);
}

/* The dtype table index of the list with sid (parsed once per list). */
static int dtype_index(struct kin_parse *p, uint32_t sid, uint32_t *idx)
{
	struct opmfu_dtype d;
	if (sid >= p->n_dtype_of) {
		size_t old = p->n_dtype_of, cap = old;
		if (opmfu_grow((void **)&p->dtype_of, &cap, (size_t)sid + 1, sizeof(*p->dtype_of)))
			return -1;
		memset(p->dtype_of + old, 0, (cap - old) * sizeof(*p->dtype_of));
		p->n_dtype_of = cap;
	}
	if (!p->dtype_of[sid]) {
		opmfu_kineto_dtype(opmfu_strtab_str(&p->t->strs, sid), opmfu_strtab_len(&p->t->strs, sid), sid, &d);
		if (opmfu_trace_add_dtype(p->t, &d, &p->dtype_of[sid]))
			return -1;
	}
	*idx = p->dtype_of[sid];
	return 0;
}

static uint32_t intern(struct kin_parse *p, const struct sbuf *sb)
{
	return sb->oom ? 0 : opmfu_strtab_intern(&p->t->strs, sb->buf, sb->len);
}

/* The collective args of the event being kept, for owner, into a side
 * array; coll: keep its "Collective name" too (a cpu_op's). */
static int add_cargs(struct kin_parse *p, struct kin_cargs **v, size_t *n, size_t *cap, size_t owner, int coll)
{
	const struct kin_event *ev = &p->ev;
	struct kin_cargs c;

	memset(&c, 0, sizeof(c));
	c.owner = (uint32_t)owner;
	c.in = ev->in_n;
	c.out = ev->out_n;
	if (ev->has_dtype && ev->dtype.len && !(c.dtype = intern(p, &ev->dtype)))
		return -1;
	if (ev->has_pgname && ev->pgname.len) {
		if (!(c.group = intern(p, &ev->pgname)))
			return -1;
	} else if (ev->has_ranks && ev->n_ranks >= 1 && !(c.group = intern(p, &ev->ranks))) {
		return -1;
	}
	if (coll && ev->has_coll && ev->coll.len && !(c.coll = intern(p, &ev->coll)))
		return -1;
	c.ranks = ev->gsize > 0 ? (int32_t)ev->gsize
				: ev->n_ranks >= 1 && ev->n_ranks <= KIN_COLL_MAX_RANKS ? (int32_t)ev->n_ranks : 0;
	if (OPMFU_GROW(*v, *cap, *n + 1))
		return -1;
	(*v)[(*n)++] = c;
	return 0;
}

static int add_op(struct kin_parse *p, int64_t end)
{
	struct kin_event *ev = &p->ev;
	struct kin_op op;
	uint32_t sid;

	memset(&op, 0, sizeof(op));
	op.start = ev->ts;
	op.end = end;
	op.ext = ev->has_ext ? ev->ext : INT64_MIN;
	op.link_op = KIN_NONE;
	op.shapes = p->t->shape_unknown;
	if (thread_of(p, &op.thread) || !(op.name = intern(p, &ev->name)))
		return -1;
	if (ev->has_dims && !ev->dims_bad && !(op.shapes = intern(p, &ev->dims)))
		return -1;
	if (ev->has_types && (!(sid = intern(p, &ev->types)) || dtype_index(p, sid, &op.dtype)))
		return -1;
	if (ev->has_kflop) {
		/* a named entry after the positional ones: formulas that read
		 * Concrete Inputs by position pass it by (flops/shape_flops.h) */
		char buf[48];
		int len = snprintf(buf, sizeof(buf), "%skernel_flop=%lld",
				   ev->has_concrete ? "\x1f" : "", (long long)ev->kflop);
		if (!ev->has_concrete) /* the buffer may hold an earlier event's */
			sbuf_reset(&ev->concrete);
		sbuf_add(&ev->concrete, buf, (size_t)len);
		if (ev->concrete.oom)
			return -1;
		ev->has_concrete = 1;
	}
	if (ev->has_concrete && !(op.attrs = intern(p, &ev->concrete)))
		return -1;
	if (KIN_GROW(p, KIN_PAGED_OPS, p->ops, p->cap_ops, p->n_ops + 1))
		return -1;
	if ((ev->has_cargs || ev->has_coll) && add_cargs(p, &p->ocargs, &p->n_ocargs, &p->cap_ocargs, p->n_ops, 1))
		return -1;
	p->ops[p->n_ops++] = op;
	return 0;
}

static int add_kernel(struct kin_parse *p, int64_t end)
{
	struct kin_event *ev = &p->ev;
	struct kin_kernel k;

	memset(&k, 0, sizeof(k));
	k.start = ev->ts;
	k.end = end;
	k.ext = ev->has_ext ? ev->ext : INT64_MIN;
	k.corr = ev->has_corr ? ev->corr : INT64_MIN;
	k.op = KIN_NONE;
	if (thread_of(p, &k.thread) || !(k.name = intern(p, &ev->name)))
		return -1;
	if (ev->has_coll)
		k.comm = intern(p, &ev->coll);
	else if (opmfu_kineto_is_comm(ev->name.buf, ev->name.len))
		k.comm = k.name;
	if ((ev->has_coll && !k.comm) || KIN_GROW(p, KIN_PAGED_KERNELS, p->kernels, p->cap_kernels, p->n_kernels + 1))
		return -1;
	if (k.comm && ev->has_cargs && add_cargs(p, &p->kcargs, &p->n_kcargs, &p->cap_kcargs, p->n_kernels, 0))
		return -1;
	if (ev->has_device && ev->device >= 0 && ev->device < KIN_DEVICE_COUNTS)
		p->device_kernels[ev->device]++;
	p->kernels[p->n_kernels++] = k;
	return 0;
}

/* A copy or memset: the MEMCPY range it becomes, holding its correlation
 * id until the links are made (kineto.h). Not a kernel: it has no FLOPs
 * and no op, whatever External id it carries. */
static int add_copy(struct kin_parse *p, int64_t end)
{
	const struct kin_event *ev = &p->ev;
	struct opmfu_range r = { ev->ts, end, ev->has_corr ? ev->corr : INT64_MIN, 0, 0 };
	if (!(r.name = intern(p, &ev->name)))
		return -1;
	return opmfu_ranges_add(&p->copies, &r);
}

static int add_step(struct kin_parse *p, int64_t end, int64_t n, int gpu)
{
	if (OPMFU_GROW(p->steps, p->cap_steps, p->n_steps + 1))
		return -1;
	p->steps[p->n_steps++] = (struct kin_step){ p->ev.ts, end, n, gpu };
	return 0;
}

static int add_module(struct kin_parse *p, int64_t end)
{
	const struct kin_event *ev = &p->ev;
	struct opmfu_range r = { ev->ts, end, 0, 0, 0 };
	if (ev->name.oom || !(r.name = opmfu_strtab_intern(&p->t->strs, ev->name.buf + OPMFU_KINETO_MODULE_PREFIX_LEN,
							      ev->name.len - OPMFU_KINETO_MODULE_PREFIX_LEN)))
		return -1;
	return opmfu_ranges_add(&p->mods, &r);
}

/* A flow's end: "s" on the launching runtime call, "f" on the kernel (its
 * pid, tid and ts find the kernel, kineto_link.c). Without an id or a
 * position it pairs nothing and is dropped. */
static int add_flow(struct kin_parse *p)
{
	const struct kin_event *ev = &p->ev;
	struct kin_flow f = { ev->id, ev->ts, KIN_NONE };
	struct kin_flow **v = ev->ph_flow == 1 ? &p->fstarts : &p->fends;
	size_t *n = ev->ph_flow == 1 ? &p->n_fstarts : &p->n_fends;
	size_t *cap = ev->ph_flow == 1 ? &p->cap_fstarts : &p->cap_fends;

	if (!ev->has_id || !ev->ts_ok)
		return 0;
	if (thread_of(p, &f.thread))
		return -1;
	if (f.thread == KIN_NONE)
		return 0;
	if (KIN_GROW(p, ev->ph_flow == 1 ? KIN_PAGED_FSTARTS : KIN_PAGED_FENDS, *v, *cap, *n + 1))
		return -1;
	(*v)[(*n)++] = f;
	return 0;
}

/* An event ended: keep what it is, if it is of use. */
static int event_end(struct kin_parse *p)
{
	struct kin_event *ev = &p->ev;
	int64_t end, step;
	int rc = 0, is_step;

	if (ev->ph_c || ev->cat == CAT_RANGE)
		p->n_counters++;
	if (ev->verdict != V_SKIP && ev->ph_flow && ev->cat == CAT_FLOW)
		return add_flow(p) ? nomem(p) : 1;
	if (ev->verdict == V_SKIP || !ev->ph_x || ev->cat <= CAT_OTHER || ev->cat >= CAT_FLOW)
		return 1;
	if (ev->cat == CAT_RUNTIME) {
		uint32_t th;
		if (!ev->has_corr)
			return 1;
		if (!ev->ts_ok) {
			p->n_bad++;
			return 1;
		}
		if (thread_of(p, &th) || KIN_GROW(p, KIN_PAGED_LAUNCHES, p->launches, p->cap_launches, p->n_launches + 1))
			return nomem(p);
		p->launches[p->n_launches++] = (struct kin_launch){ ev->ts, ev->corr, th };
		return 1;
	}
	is_step = opmfu_kineto_step(ev->name.buf, ev->name.len, &step);
	if ((ev->cat == CAT_USER || ev->cat == CAT_GPU_USER) && !is_step)
		return 1;
	if (ev->cat == CAT_PYTHON && !opmfu_kineto_is_module(ev->name.buf, ev->name.len))
		return 1;
	/* a span: ts and a duration >= 0 that do not overflow */
	if (!ev->ts_ok || !ev->dur_ok || ev->dur < 0 || ev->ts > INT64_MAX - ev->dur) {
		p->n_bad++;
		return 1;
	}
	end = ev->ts + ev->dur;
	switch (ev->cat) {
	case CAT_CPU_OP: rc = is_step ? add_step(p, end, step, 0) : add_op(p, end); break;
	case CAT_USER: rc = add_step(p, end, step, 0); break;
	case CAT_GPU_USER: rc = add_step(p, end, step, 1); break;
	case CAT_PYTHON: rc = add_module(p, end); break;
	case CAT_KERNEL: rc = add_kernel(p, end); break;
	case CAT_MEMCPY: rc = add_copy(p, end); break;
	default: break;
	}
	return rc ? nomem(p) : 1;
}

/* ---- yajl ---- */

static int on_end(void *ctx)
{
	struct kin_parse *p = ctx;

	if (p->skip) {
		p->skip--;
		return 1;
	}
	switch (p->ctx) {
	case C_TOP: p->ctx = C_DONE; break;
	case C_EVENTS: case C_DEVPROPS: case C_DIST: p->ctx = C_TOP; break;
	case C_EVENT: p->ctx = C_EVENTS; return event_end(p);
	case C_ARGS: p->ctx = C_EVENT; break;
	case C_LIST: p->ctx = C_ARGS; break;
	case C_RANKS:
		add_capped(&p->ev.ranks, "]", 1);
		if (p->ev.ranks.oom)
			return nomem(p);
		p->ctx = C_ARGS;
		break;
	case C_DIMS:
		if (--p->sub == 0)
			p->ctx = C_ARGS;
		break;
	case C_DEVPROP:
		if (p->n_devprops < KIN_MAX_DEVPROPS)
			p->devprops[p->n_devprops++] = p->cur_dev;
		p->ctx = C_DEVPROPS;
		break;
	default: break;
	}
	return 1;
}

static int on_key(void *ctx, const unsigned char *k, size_t n)
{
	struct kin_parse *p = ctx;

	if (p->skip)
		return 1;
	switch (p->ctx) {
	case C_TOP: p->key = top_key(k, n); break;
	case C_EVENT: p->key = p->ev.verdict == V_SKIP ? K_OTHER : event_key(k, n); break;
	case C_ARGS: p->key = arg_key(k, n); break;
	case C_DEVPROP: p->key = KEY_IS(k, n, "id") ? K_ID : (KEY_IS(k, n, "name") ? K_DEVNAME : K_OTHER); break;
	case C_DIST: p->key = KEY_IS(k, n, "rank") ? K_RANK : (KEY_IS(k, n, "world_size") ? K_WORLD : K_OTHER); break;
	default: p->key = K_OTHER; break;
	}
	return 1;
}

static int cb_null(void *ctx)
{
	return on_value(ctx, T_NULL, "", 0);
}

static int cb_bool(void *ctx, int b)
{
	return on_value(ctx, T_BOOL, b ? "true" : "false", b ? 4 : 5);
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	return on_value(ctx, T_NUM, s, n);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	return on_value(ctx, T_STR, (const char *)s, n);
}

static int cb_start_map(void *ctx)
{
	return on_value(ctx, T_MAP, NULL, 0);
}

static int cb_start_array(void *ctx)
{
	return on_value(ctx, T_ARRAY, NULL, 0);
}

static const yajl_callbacks callbacks = {
	cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
	cb_start_map, on_key, on_end, cb_start_array, on_end
};

enum opmfu_status opmfu_kin_parse_init(struct kin_parse *p, struct opmfu_trace *t, const char *path,
				       struct opmfu_err *err)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	p->path = path;
	p->rank = p->world = -1;
	sbuf_init(&p->ev.name);
	sbuf_init(&p->ev.dims);
	sbuf_init(&p->ev.types);
	sbuf_init(&p->ev.concrete);
	sbuf_init(&p->ev.coll);
	sbuf_init(&p->ev.dtype);
	sbuf_init(&p->ev.pgname);
	sbuf_init(&p->ev.ranks);
	/* shapes an op does not record are "N/A", as Ascend's unknown ones */
	if (t->shape_unknown == UINT32_MAX && !(t->shape_unknown = opmfu_strtab_intern(&t->strs, "N/A", 3))) {
		t->shape_unknown = UINT32_MAX;
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading the trace", path);
	}
	if (opmfu_json_init(&p->json, &callbacks, p, err)) {
		opmfu_err_prefix(err, "%s", path);
		return OPMFU_ERR_NOMEM;
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_kin_parse_check(struct kin_parse *p, struct opmfu_err *err)
{
	if (!p->top_object || !p->has_events)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: not a PyTorch profiler trace: no traceEvents list", p->path);
	return OPMFU_OK;
}

void opmfu_kin_drop_events(struct kin_parse *p)
{
	KIN_DROP(p, KIN_PAGED_OPS, p->ops, p->cap_ops);
	KIN_DROP(p, KIN_PAGED_LAUNCHES, p->launches, p->cap_launches);
	KIN_DROP(p, KIN_PAGED_KERNELS, p->kernels, p->cap_kernels);
	KIN_DROP(p, KIN_PAGED_FSTARTS, p->fstarts, p->cap_fstarts);
	KIN_DROP(p, KIN_PAGED_FENDS, p->fends, p->cap_fends);
	opmfu_free(p->kcargs);
	opmfu_free(p->ocargs);
	opmfu_free(p->coll_host);
	opmfu_free(p->kby);
	p->kcargs = p->ocargs = NULL;
	p->coll_host = NULL;
	p->kby = NULL;
	p->n_kcargs = p->n_ocargs = p->cap_kcargs = p->cap_ocargs = 0;
}

void opmfu_kin_parse_release(struct kin_parse *p)
{
	opmfu_json_release(&p->json);
	opmfu_kin_drop_events(p);
	opmfu_ranges_release(&p->mods);
	opmfu_ranges_release(&p->copies);
	opmfu_free(p->steps);
	opmfu_free(p->threads);
	opmfu_idtab_release(&p->thread_tab);
	opmfu_free(p->dtype_of);
	sbuf_release(&p->ev.name);
	sbuf_release(&p->ev.dims);
	sbuf_release(&p->ev.types);
	sbuf_release(&p->ev.concrete);
	sbuf_release(&p->ev.coll);
	sbuf_release(&p->ev.dtype);
	sbuf_release(&p->ev.pgname);
	sbuf_release(&p->ev.ranks);
}
