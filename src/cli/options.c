/*
 * options.c - options more than one command takes: rank lists
 * (--rank-list), export lists (--export), the filters (--steps,
 * --time-range), and the options of analysing
 * inputs (--peak, --peak-bw, --chip, -j, --model, OPMFU_PEAK) that analyze
 * and diff share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model_args.h"

int opmfu_parse_rank_list(const char *s, int **out)
{
	int *v = NULL, n = 0, cap = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < -1 || a > 1000000)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 1000000 || b - a > 1000000)
				goto bad;
		}
		for (; a <= b; a++) {
			if (n == cap) {
				int *nv = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*v));
				if (!nv)
					goto bad;
				v = nv;
			}
			v[n++] = (int)a;
		}
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (n == 0)
		goto bad;
	*out = v;
	return n;
bad:
	free(v);
	return -1;
}

unsigned opmfu_parse_exports(const char *cmd, const char *list, unsigned allowed)
{
	static const struct {
		const char *word;
		unsigned bit;
	} words[] = { { "db", OPMFU_EXPORT_DB },
		      { "xlsx", OPMFU_EXPORT_XLSX },
		      { "csv", OPMFU_EXPORT_CSV },
		      { "json", OPMFU_EXPORT_JSON },
		      { "html", OPMFU_EXPORT_HTML } };
	const size_t n_words = sizeof(words) / sizeof(words[0]);
	char word[64], msg[160];
	unsigned bits = 0;
	const char *p = list;
	size_t k, n_ok = 0, shown = 0;

	for (k = 0; k < n_words; k++)
		n_ok += !!(allowed & words[k].bit);
	for (;;) {
		size_t n = strcspn(p, ","), found = n_words;
		for (k = 0; k < n_words; k++)
			if ((allowed & words[k].bit) && strlen(words[k].word) == n && !strncmp(p, words[k].word, n))
				found = k;
		if (found == n_words) {
			/* "--export: '%s' is not db, xlsx, csv or json" */
			snprintf(msg, sizeof(msg), "--export: '%%s' is not ");
			for (k = 0; k < n_words; k++)
				if (allowed & words[k].bit)
					snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s%s",
						 shown++ == 0 ? "" : shown == n_ok ? " or " : ", ", words[k].word);
			snprintf(word, sizeof(word), "%.*s", (int)n, p);
			opmfu_die_usage(cmd, msg, word);
		}
		bits |= words[found].bit;
		if (!p[n])
			return bits;
		p += n + 1;
	}
}

void opmfu_take_input_option(const char *cmd, struct opmfu_opts *o, int c, const char *arg, int **ranks)
{
	char msg[256];

	switch (c) {
	case 'P': {
		double bw;
		if (opmfu_parse_peak_spec(arg, o->peak_tflops, &bw, msg, sizeof(msg)))
			opmfu_die_usage(cmd, "--peak: %s", msg);
		o->peak_origin = "--peak";
		if (bw > 0) { /* the last of --peak bw= and --peak-bw counts */
			o->peak_bw_tbps = bw;
			o->peak_bw_origin = "--peak";
		}
		break;
	}
	case 'W':
		if (opmfu_parse_peak_bw(arg, &o->peak_bw_tbps, msg, sizeof(msg)))
			opmfu_die_usage(cmd, "--peak-bw: %s", msg);
		o->peak_bw_origin = "--peak-bw";
		break;
	case 'C':
		o->chip = arg;
		break;
	case 'X': /* --csv-verbatim */
		o->csv_verbatim = 1;
		break;
	case 'L':
		o->follow_symlinks = 1;
		break;
	case 'F': /* --no-tf32 */
		o->no_tf32 = 1;
		break;
	case 'U': /* --run: the library checks it against the runs found */
		if (!*arg) /* the start of every ID: it would pick any lone run */
			opmfu_die_usage(cmd, "%s", "--run: empty: give a run's ID or the start of one");
		o->run = arg;
		break;
	case 'j': {
		char *end;
		long v = strtol(arg, &end, 10);
		if (*end || end == arg || v < 1 || v > 1024)
			opmfu_die_usage(cmd, "--jobs: '%s' is not a number from 1 to 1024", arg);
		o->jobs = (int)v;
		break;
	}
	case 'R': {
		int *v = NULL, n = opmfu_parse_rank_list(arg, &v);
		if (n < 0)
			opmfu_die_usage(cmd, "--rank-list: '%s' is not a list like 0,3,8-15", arg);
		free(*ranks); /* the last --rank-list counts */
		o->ranks = *ranks = v;
		o->n_ranks = (size_t)n;
		break;
	}
	}
}

/* OPMFU_PEAK: its classes unless --peak gave classes, its bw= unless the
 * command line gave a bandwidth (--peak-bw, --peak bw=). It is checked
 * whenever set, so a bad value is never silently ignored. */
static void peak_from_env(const char *cmd, struct opmfu_opts *o)
{
	const char *env = getenv("OPMFU_PEAK");
	double tflops[OPMFU_NCLASS], bw;
	char msg[256];
	int c;

	if (!env || !*env || (o->peak_origin && o->peak_bw_origin))
		return; /* the command line wins */
	if (opmfu_parse_peak_spec(env, tflops, &bw, msg, sizeof(msg)))
		opmfu_die_usage(cmd, "OPMFU_PEAK: %s", msg);
	if (!o->peak_origin) {
		for (c = 0; c < OPMFU_NCLASS; c++)
			o->peak_tflops[c] = tflops[c];
		o->peak_origin = "OPMFU_PEAK";
	}
	if (!o->peak_bw_origin && bw > 0) {
		o->peak_bw_tbps = bw;
		o->peak_bw_origin = "OPMFU_PEAK";
	}
}

void opmfu_end_input_options(const char *cmd, struct opmfu_opts *o, struct opmfu_model_args *m)
{
	if (m->first && !m->o.config)
		opmfu_die_usage(cmd, "--%s is a run option of a model: it needs --model CONFIG", m->first);
	if (m->o.config)
		o->model = &m->o;
	peak_from_env(cmd, o);
}

void opmfu_take_steps(const char *cmd, struct opmfu_opts *o, const char *arg, int **steps)
{
	int *v = NULL, n = opmfu_parse_rank_list(arg, &v), i;
	for (i = 0; i < n; i++)
		if (v[i] < 0)
			n = -1;
	if (n < 0) {
		free(v);
		opmfu_die_usage(cmd, "--steps: '%s' is not a list of step numbers like 3,5-7", arg);
	}
	free(*steps); /* the last --steps counts */
	o->steps = *steps = v;
	o->n_steps = (size_t)n;
	o->steps_text = arg;
}

void opmfu_take_time_range(const char *cmd, struct opmfu_opts *o, const char *arg)
{
	if (opmfu_parse_time_range(arg, &o->time_from_ns, &o->time_to_ns))
		opmfu_die_usage(cmd, "--time-range: '%s' is not START:END with START < END, each a number "
				"and a unit ns, us, ms or s, e.g. 2s:5s, 500ms:, :1.5s", arg);
	o->has_time_range = 1;
	o->time_range_text = arg;
}

void opmfu_parse_shard(const char *arg, int *i, int *n)
{
	char *end;
	long a = strtol(arg, &end, 10), b = 0;
	int ok = end != arg && *end == '/';
	if (ok) {
		const char *p = end + 1;
		b = strtol(p, &end, 10);
		ok = end != p && !*end && b >= 1 && b <= 1000000 && a >= 1 && a <= b;
	}
	if (!ok)
		opmfu_die_usage("analyze ", "--shard: '%s' is not I/N with 1 <= I <= N <= 1000000 (I counts from 1, "
				"as SLURM_ARRAY_TASK_ID of --array=1-N)", arg);
	*i = (int)a;
	*n = (int)b;
}
