/*
 * info_json.c - the chip info file info.json.N (SPEC 1.4): DeviceInfo[0]'s
 * AI cores and clock give the cube unit's peak FLOPS. Parsed with yajl
 * (read/json_stream.h), streamed from the file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/ascend/ascend.h"
#include "read/dirwalk.h"
#include "read/json_stream.h"

#define INFO_MAX_BYTES (16 << 20)

enum { V_DEVICE, V_CORES, V_FREQ, V__COUNT };

static void info_values(struct opmfu_json_value *v)
{
	memset(v, 0, V__COUNT * sizeof(*v));
	v[V_DEVICE].path = "DeviceInfo[0]";
	v[V_CORES].path = "DeviceInfo[0].ai_core_num";
	v[V_FREQ].path = "DeviceInfo[0].aic_frequency";
}

/* A JSON number or a string holding a decimal number (real files use both). */
static int numeric(const struct opmfu_json_value *v, double *out)
{
	char *end;
	if (v->type == OPMFU_JSON_NUMBER) {
		if (v->len >= sizeof(v->text))
			return -1;
	} else if (v->type != OPMFU_JSON_STRING) {
		return -1; /* a string's first 63 bytes are what counts */
	}
	errno = 0;
	*out = strtod(v->text, &end);
	while (*end == ' ')
		end++;
	if (end == v->text || *end || errno || !isfinite(*out))
		return -1;
	return 0;
}

/* The peaks from the values picked, or the field at fault. */
static enum opmfu_status info_from(const struct opmfu_json_value *v, struct opmfu_chip_info *out,
				   struct opmfu_err *err)
{
	double c, f;

	if (v[V_DEVICE].type == OPMFU_JSON_ABSENT)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "no DeviceInfo[0] object");
	if (v[V_CORES].type == OPMFU_JSON_ABSENT || v[V_FREQ].type == OPMFU_JSON_ABSENT)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "DeviceInfo[0] has no %s",
				     v[V_CORES].type == OPMFU_JSON_ABSENT ? "ai_core_num" : "aic_frequency");
	if (numeric(&v[V_CORES], &c) || c != floor(c))
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "DeviceInfo[0].ai_core_num is not an integer");
	if (numeric(&v[V_FREQ], &f))
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "DeviceInfo[0].aic_frequency is not a number of MHz");
	if (c <= 0 || f <= 0 || c > 1e6 || f > 1e7)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT,
				     "DeviceInfo[0] gives %g AI cores at %g MHz: not a usable chip", c, f);
	out->ai_core_num = (long long)c;
	out->aic_mhz = f;
	/* cube unit: 16x16x16 MACs per cycle per core for fp16, twice for int8 */
	out->peak_fp16 = (double)out->ai_core_num * f * 8192 * 1e6;
	out->peak_int8 = (double)out->ai_core_num * f * 16384 * 1e6;
	return OPMFU_OK;
}

enum opmfu_status opmfu_parse_info_json(const char *text, size_t len, struct opmfu_chip_info *out,
					struct opmfu_err *err)
{
	struct opmfu_json_value v[V__COUNT];
	enum opmfu_status st;

	info_values(v);
	if ((st = opmfu_json_pick_text(text, len, v, V__COUNT, err)))
		return st;
	return info_from(v, out, err);
}

enum opmfu_status opmfu_read_info_json(const char *path, struct opmfu_chip_info *out, struct opmfu_err *err)
{
	struct opmfu_json_value v[V__COUNT];
	struct opmfu_json_pick p;
	enum opmfu_status st;
	/* never blocking: a FIFO named info.json.N is refused (SPEC 26) */
	FILE *f = opmfu_fopen_regular(path, "cannot read", err);

	if (!f)
		return OPMFU_ERR_IO;
	info_values(v);
	st = opmfu_json_pick_init(&p, v, V__COUNT, err);
	st = opmfu_json_feed_file(&p.json, st, f, INFO_MAX_BYTES, "a chip info file", err);
	if (!st)
		st = info_from(v, out, err);
	if (st)
		opmfu_err_prefix(err, "%s", path);
	opmfu_json_release(&p.json);
	fclose(f);
	return st;
}
