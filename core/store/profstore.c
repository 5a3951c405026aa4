/*
 * Run profiles in a store: stored in their compact encoded form
 * (core/model/profcodec), one per (run, kind).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/profstore.h"
#include "core/store/frametot.h"
#include "core/model/runref.h"
#include "core/model/import.h"
#include "core/model/profcodec.h"
#include "core/base/banned.h"

const char *tk_profstore_default_kind(enum tk_unit unit)
{
	switch (unit) {
	case TK_UNIT_BYTES:
		return "alloc";
	case TK_UNIT_COUNT:
		return "alloc_count";
	default:
		return "cpu";
	}
}

int tk_profstore_valid_kind(const char *kind)
{
	const char *p;

	if (!*kind || strlen(kind) > 32)
		return 0;
	for (p = kind; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

void tk_profstore_split_format(const char *spec, struct tk_buf *path, const char **format)
{
	const char *colon = strrchr(spec, ':');

	*format = NULL;
	if (colon && colon[1] && tk_importer_find(colon + 1)) {
		tk_buf_add(path, spec, (size_t)(colon - spec));
		*format = colon + 1;
		return;
	}
	tk_buf_adds(path, spec);
}

int tk_profstore_put(struct tk_store *s, const char *run_id, const char *kind,
		     const char *format, const struct tk_profile *p, struct tk_err *err)
{
	struct tk_buf blob = TK_BUF_INIT;
	struct tk_profile_blob b;
	int ret = tk_profile_encode(p, &blob, err);

	if (!ret) {
		memset(&b, 0, sizeof(b));
		b.run_id = run_id;
		b.kind = kind;
		b.unit = tk_unit_name(p->unit);
		b.source_format = format;
		b.nodes = p->nr_nodes - 1;
		b.total = tk_profile_total(p);
		b.data = blob.buf;
		b.len = blob.len;
		ret = tk_store_put_profile(s, &b, err);
	}
	/* a store that keeps no frame totals still keeps the profile */
	if (!ret) {
		ret = tk_frametot_put(s, run_id, kind, p, err);
		if (ret == TK_EUSAGE) {
			tk_err_clear(err);
			ret = 0;
		}
	}
	tk_buf_release(&blob);
	return ret;
}

int tk_profstore_get(struct tk_store *s, const char *run_id, const char *kind,
		     struct tk_profile *out, struct tk_err *err)
{
	struct tk_buf blob = TK_BUF_INIT, name = TK_BUF_INIT;
	int ret = tk_store_get_profile(s, run_id, kind, &blob, err);

	if (!ret) {
		tk_buf_addf(&name, "%s profile of run %s", kind, run_id);
		ret = tk_profile_decode(blob.buf, blob.len, name.buf, out, err);
	}
	tk_buf_release(&blob);
	tk_buf_release(&name);
	return ret;
}

static int take_first(const struct tk_run *run, void *data)
{
	char *id = data;

	memcpy(id, run->id, TK_RUN_ID_LEN + 1);
	return 1;
}

int tk_profstore_find_run(struct tk_store *s, const char *run_id, const char *key,
			  const char *branch, const char *kind, char id[TK_RUN_ID_LEN + 1],
			  struct tk_err *err)
{
	struct tk_run_query q;
	const char *keys[2] = { key, NULL };
	int ret;

	memset(&q, 0, sizeof(q));
	q.run_id = run_id;
	q.keys = key ? keys : NULL;
	q.branch = branch;
	q.profile_kind = kind;
	q.limit = 1;
	id[0] = '\0';
	ret = tk_store_query_runs(s, &q, take_first, id, err);
	if (ret < 0)
		return ret;
	if (id[0])
		return 0;
	{
		struct tk_buf what = TK_BUF_INIT;

		if (run_id)
			tk_buf_addf(&what, "no run %s", run_id);
		else
			tk_buf_addf(&what, "no run of key '%s'", key);
		if (branch)
			tk_buf_addf(&what, " on branch '%s'", branch);
		if (kind)
			tk_buf_addf(&what, " with a %s profile", kind);
		ret = tk_err_set(err, TK_EDATA, "%s", what.buf);
		tk_buf_release(&what);
		return ret;
	}
}

/* The key and the run's label, as diff labels runs. */
static int label_run(const struct tk_run *r, void *data)
{
	struct tk_buf *b = data;
	struct tk_run_ref ref;

	tk_run_ref_set(&ref, r);
	tk_buf_addf(b, "%s \xc2\xb7 ", r->key);
	tk_run_label(b, &ref);
	tk_run_ref_release(&ref);
	return 1;
}

int tk_profstore_load(struct tk_store *s, const char *run_id, const char *key,
		      const char *branch, const char *kind, struct tk_profile *out,
		      struct tk_buf *label, struct tk_err *err)
{
	struct tk_err ignored = TK_ERR_INIT;
	struct tk_run_query q;
	char id[TK_RUN_ID_LEN + 1];
	int ret = tk_profstore_find_run(s, run_id, key, branch, kind, id, err);

	if (!ret)
		ret = tk_profstore_get(s, id, kind, out, err);
	if (!ret && label) {
		memset(&q, 0, sizeof(q));
		q.run_id = id;
		/* the label is a nicety: a run that cannot be read has none */
		if (tk_store_query_runs(s, &q, label_run, label, &ignored) < 0)
			tk_buf_reset(label);
	}
	return ret;
}

int tk_profstore_totals(struct tk_store *s, const char *const *ids, size_t n,
			const char *kind, double *out, const char **units, struct tk_err *err)
{
	struct tk_store_profile_total q;
	struct tk_profile p;
	enum tk_unit u;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		memset(&q, 0, sizeof(q));
		q.run_id = ids[i];
		q.kind = kind;
		out[i] = -1;
		if (units)
			units[i] = NULL;
		ret = s->ops->ctrl ? s->ops->ctrl(s, TK_STORE_CTRL_PROFILE_TOTAL, &q, err)
				   : TK_EUSAGE;
		if (!ret) {
			if (q.found)
				out[i] = q.total;
			if (q.found && units)
				units[i] = tk_unit_parse(q.unit, &u) ? NULL : tk_unit_name(u);
			continue;
		}
		if (ret != TK_EUSAGE)
			return ret;
		/* a backend without the operation: load the profile */
		tk_err_clear(err);
		tk_profile_init(&p, TK_UNIT_SAMPLES);
		ret = tk_profstore_get(s, ids[i], kind, &p, err);
		if (!ret) {
			tk_profile_finish(&p);
			out[i] = tk_profile_total(&p);
			if (units)
				units[i] = tk_unit_name(p.unit);
		}
		tk_profile_release(&p);
		if (ret == TK_EDATA)
			tk_err_clear(err);
		else if (ret)
			return ret;
	}
	return 0;
}

int tk_profstore_alloc_totals(struct tk_store *s, const char *const *ids, size_t n,
			      double *out, struct tk_err *err)
{
	return tk_profstore_totals(s, ids, n, "alloc", out, NULL, err);
}
