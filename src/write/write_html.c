/*
 * write_html.c - the html writer: OUT/cluster_analysis_output/
 * opmfu_report.html, the run's report as one page (SPEC 23). It gathers the
 * summary's tables as the xlsx writer does (write/summary.h: by name, as
 * they are put; a rank's rows count once kept) and renders the page at
 * commit (write/summary_html.c), staged and renamed into place: a run that
 * never commits leaves an earlier page as it was.
 */
#include <string.h>

#include "base/mem.h"
#include "write/stage.h"
#include "write/summary_html.h"

struct html_writer {
	struct opmfu_writer base;
	char *path;
	struct opmfu_summary sum;
};

extern const struct opmfu_writer_type opmfu_writer_html;

static void html_close(struct opmfu_writer *w)
{
	struct html_writer *o = (struct html_writer *)w;
	opmfu_summary_release(&o->sum);
	opmfu_free(o->path);
	opmfu_free(o);
}

static enum opmfu_status html_open(struct opmfu_writer **out, const char *path,
				   const struct opmfu_table_def *const *defs, size_t n_defs, struct opmfu_err *err)
{
	struct html_writer *o = opmfu_calloc(1, sizeof(*o));
	char *dir;
	(void)defs;
	(void)n_defs;
	*out = NULL;
	if (!o || !(o->path = opmfu_strdup(path))) {
		opmfu_free(o);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	}
	opmfu_summary_init(&o->sum);
	/* the staged pages a dead process left beside it */
	if ((dir = opmfu_strdup(path))) {
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			opmfu_stage_sweep(*dir ? dir : "/");
		} else {
			opmfu_stage_sweep(".");
		}
		opmfu_free(dir);
	}
	o->base.type = &opmfu_writer_html;
	*out = &o->base;
	return OPMFU_OK;
}

static enum opmfu_status html_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t,
				  struct opmfu_err *err)
{
	struct html_writer *o = (struct html_writer *)w;
	(void)rank;
	return opmfu_summary_add(&o->sum, t, err);
}

static enum opmfu_status html_keep_rank(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
					struct opmfu_err *err)
{
	struct html_writer *o = (struct html_writer *)w;
	(void)rank;
	(void)st;
	return opmfu_summary_keep(&o->sum, err);
}

static enum opmfu_status html_drop_rank(struct opmfu_writer *w, int rank, struct opmfu_err *err)
{
	struct html_writer *o = (struct html_writer *)w;
	(void)rank;
	(void)err;
	opmfu_summary_drop(&o->sum);
	return OPMFU_OK;
}

static enum opmfu_status html_commit(struct opmfu_writer *w, struct opmfu_err *err)
{
	struct html_writer *o = (struct html_writer *)w;
	struct opmfu_write_stats st;
	memset(&st, 0, sizeof(st));
	if (!opmfu_summary_seen(&o->sum))
		return OPMFU_OK;
	return opmfu_summary_html_save(&o->sum, o->path, &st, err);
}

const struct opmfu_writer_type opmfu_writer_html = {
	"html", OPMFU_HTML_REPORT, html_open, html_put, html_keep_rank, html_drop_rank, html_commit, html_close,
	NULL, /* copy: the page is made from the summary's tables, never copied */
};
