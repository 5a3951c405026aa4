/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 *
 *     { "shared": { "frames": [ { "name": "f", "file": "a.js", "line": 3 } ] },
 *       "profiles": [ { "type": "sampled", "unit": "milliseconds",
 *                       "samples": [[0, 1], [0]], "weights": [2, 5] },
 *                     { "type": "evented", "unit": "nanoseconds",
 *                       "events": [ { "type": "O", "frame": 0, "at": 0 },
 *                                   { "type": "C", "frame": 0, "at": 9 } ] } ] }
 *
 * Sampled profiles: each sample is a stack of frame indexes, root first,
 * with its weight. Evented profiles: open/close events; the time between
 * two events goes to the frame on top of the stack (its self time).
 *
 * Frame names are "name (file:line)" when the frame has a file, else the
 * name. Time units become nanoseconds; "bytes" stays bytes; "none" is
 * samples.
 *
 * Several profiles (threads, processes): with opts->kind naming one
 * profile (its "name"), only that one; otherwise all of them are merged
 * into one tree, skipping (with a warning) those whose unit does not
 * match the first profile's (time units match each other).
 */
#include "plugins/import/importers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "plugins/import/json-util.h"
#include "core/base/banned.h"

struct ss {
	const char *name;
	uint32_t *frames; /* name ids of shared.frames */
	size_t nr_frames;
	uint32_t *stack;
	size_t alloc_stack;
	struct tk_err *err;
};

static int ss_probe(const char *head, size_t len)
{
	if (!tk_json_starts(head, len, '{'))
		return 0;
	if (memmem(head, len, "speedscope.app/file-format-schema", 33))
		return 1;
	return memmem(head, len, "\"profiles\"", 10) && memmem(head, len, "\"shared\"", 8);
}

#define bad(s, ...) tk_json_bad((s)->err, (s)->name, __VA_ARGS__)

static int load_frames(struct ss *s, struct tk_profile *p, json_t *root)
{
	json_t *frames = json_object_get(json_object_get(root, "shared"), "frames");
	struct tk_buf tmp = TK_BUF_INIT;
	size_t i;
	int ret = 0;

	if (!json_is_array(frames))
		return tk_err_set(s->err, TK_ENOTMINE, "no shared.frames array");
	s->nr_frames = json_array_size(frames);
	s->frames = tk_xcalloc(s->nr_frames + 1, sizeof(uint32_t));
	for (i = 0; i < s->nr_frames && !ret; i++) {
		json_t *f = json_array_get(frames, i), *name = json_object_get(f, "name");
		json_t *file = json_object_get(f, "file"), *line = json_object_get(f, "line");

		if (!json_is_string(name)) {
			ret = bad(s, "shared.frames[%zu] has no name string", i);
			break;
		}
		if (tk_json_frame_name(p, &tmp, json_string_value(name), json_string_length(name),
				       json_is_string(file) ? json_string_value(file) : "",
				       json_is_string(file) ? json_string_length(file) : 0,
				       json_is_integer(line) ? (long long)json_integer_value(line) : 0,
				       &s->frames[i]))
			ret = bad(s, "shared.frames[%zu]: name longer than %u bytes", i,
				  TK_PROFILE_MAX_NAME);
	}
	tk_buf_release(&tmp);
	return ret;
}

/* Unit classes: 0 time, 1 bytes, 2 none; -1 unknown. */
static int unit_of(const char *u, double *scale)
{
	static const struct {
		const char *name;
		int cls;
		double scale;
	} units[] = {
		{ "nanoseconds", 0, 1 }, { "microseconds", 0, 1e3 }, { "milliseconds", 0, 1e6 },
		{ "seconds", 0, 1e9 }, { "bytes", 1, 1 }, { "none", 2, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (u && !strcmp(u, units[i].name)) {
			*scale = units[i].scale;
			return units[i].cls;
		}
	return -1;
}

static int frame_index(struct ss *s, json_t *v, size_t *out)
{
	json_int_t i;

	if (!json_is_integer(v))
		return 0;
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i >= s->nr_frames)
		return 0;
	*out = (size_t)i;
	return 1;
}

static int add_sampled(struct ss *s, struct tk_profile *p, json_t *prof, size_t pi,
		       double scale)
{
	json_t *samples = json_object_get(prof, "samples"), *weights = json_object_get(prof, "weights");
	size_t i, j;

	if (!json_is_array(samples))
		return bad(s, "profiles[%zu] has no samples array", pi);
	if (weights && (!json_is_array(weights) || json_array_size(weights) != json_array_size(samples)))
		return bad(s, "profiles[%zu]: weights and samples differ in length", pi);
	for (i = 0; i < json_array_size(samples); i++) {
		json_t *stack = json_array_get(samples, i);
		double w = 1;
		size_t depth;

		if (weights && !tk_json_number(json_array_get(weights, i), &w))
			return bad(s, "profiles[%zu].weights[%zu] is not a number", pi, i);
		if (tk_profile_weight_error(p, w * scale))
			return bad(s, "profiles[%zu].weights[%zu] %s", pi, i,
				   tk_profile_weight_error(p, w * scale));
		if (!json_is_array(stack))
			return bad(s, "profiles[%zu].samples[%zu] is not an array", pi, i);
		depth = json_array_size(stack);
		if (depth > TK_PROFILE_MAX_DEPTH)
			return bad(s, "profiles[%zu].samples[%zu]: stack too deep", pi, i);
		TK_ALLOC_GROW(s->stack, depth + 1, s->alloc_stack);
		for (j = 0; j < depth; j++) {
			size_t f;

			if (!frame_index(s, json_array_get(stack, j), &f))
				return bad(s, "profiles[%zu].samples[%zu]: not a frame index", pi, i);
			s->stack[j] = s->frames[f];
		}
		if (tk_profile_add_stack(p, s->stack, depth, w * scale))
			return bad(s, "profiles[%zu].samples[%zu]: too many distinct stacks", pi, i);
	}
	return 0;
}

static int add_evented(struct ss *s, struct tk_profile *p, json_t *prof, size_t pi,
		       double scale)
{
	json_t *events = json_object_get(prof, "events");
	uint32_t *nodes = NULL;
	size_t *opened = NULL;
	size_t depth = 0, alloc = 0, alloc2 = 0, i;
	double last = 0;
	int ret = 0;

	if (!json_is_array(events))
		return bad(s, "profiles[%zu] has no events array", pi);
	for (i = 0; i < json_array_size(events) && !ret; i++) {
		json_t *e = json_array_get(events, i);
		const char *type = json_string_value(json_object_get(e, "type"));
		double at;
		size_t f;

		if (!type || (strcmp(type, "O") && strcmp(type, "C")) ||
		    !tk_json_number(json_object_get(e, "at"), &at) ||
		    !frame_index(s, json_object_get(e, "frame"), &f)) {
			ret = bad(s, "profiles[%zu].events[%zu]: not an O/C event with frame and at", pi, i);
			break;
		}
		if (i && at < last) {
			ret = bad(s, "profiles[%zu].events[%zu]: time goes backwards", pi, i);
			break;
		}
		if (depth && tk_profile_add_self(p, nodes[depth - 1], (at - last) * scale)) {
			ret = bad(s, "profiles[%zu].events[%zu]: the time since the last event %s", pi,
				  i, tk_profile_weight_error(p, (at - last) * scale));
			break;
		}
		last = at;
		if (type[0] == 'O') {
			uint32_t parent = depth ? nodes[depth - 1] : TK_PROFILE_ROOT;
			uint32_t n;

			if (depth >= TK_PROFILE_MAX_DEPTH) {
				ret = bad(s, "profiles[%zu].events[%zu]: stack too deep", pi, i);
				break;
			}
			n = tk_profile_child(p, parent, s->frames[f]);
			if (!n) {
				ret = bad(s, "profiles[%zu].events[%zu]: too many distinct stacks", pi, i);
				break;
			}
			TK_ALLOC_GROW(nodes, depth + 1, alloc);
			TK_ALLOC_GROW(opened, depth + 1, alloc2);
			nodes[depth] = n;
			opened[depth++] = f;
		} else if (!depth || opened[depth - 1] != f) {
			ret = bad(s, "profiles[%zu].events[%zu]: closes a frame that is not on top", pi, i);
		} else {
			depth--;
		}
	}
	free(nodes);
	free(opened);
	return ret;
}

static int ss_parse(struct tk_reader *in, struct tk_profile *p,
		    const struct tk_import_opts *opts, struct tk_err *err)
{
	struct tk_buf text = TK_BUF_INIT;
	json_t *root = NULL, *profiles;
	struct ss s;
	size_t i, used = 0, skipped = 0, pick = (size_t)-1;
	int ret, cls = -1;

	memset(&s, 0, sizeof(s));
	s.name = in->name;
	s.err = err;
	ret = tk_json_load(in, &text, &root, err);
	if (ret)
		goto out;
	profiles = json_object_get(root, "profiles");
	if (!json_is_object(root) || !json_is_array(profiles)) {
		ret = tk_err_set(err, TK_ENOTMINE, "no profiles array");
		goto out;
	}
	ret = load_frames(&s, p, root);
	if (ret)
		goto out;
	if (opts->kind)
		for (i = 0; i < json_array_size(profiles) && pick == (size_t)-1; i++) {
			const char *name = json_string_value(json_object_get(json_array_get(profiles, i), "name"));

			if (name && !strcmp(name, opts->kind))
				pick = i;
		}
	for (i = 0; i < json_array_size(profiles) && !ret; i++) {
		json_t *prof = json_array_get(profiles, i);
		const char *type = json_string_value(json_object_get(prof, "type"));
		double scale = 1;
		int c = unit_of(json_string_value(json_object_get(prof, "unit")), &scale);

		if (pick != (size_t)-1 && i != pick)
			continue;
		if (!type || (strcmp(type, "sampled") && strcmp(type, "evented"))) {
			ret = bad(&s, "profiles[%zu] is neither sampled nor evented", i);
			break;
		}
		if (c < 0) {
			ret = bad(&s, "profiles[%zu] has an unknown unit", i);
			break;
		}
		if (cls >= 0 && c != cls) {
			skipped++;
			continue;
		}
		cls = c;
		p->unit = c == 0 ? TK_UNIT_NANOSECONDS : c == 1 ? TK_UNIT_BYTES : TK_UNIT_SAMPLES;
		if (type[0] == 's')
			ret = add_sampled(&s, p, prof, i, scale);
		else
			ret = add_evented(&s, p, prof, i, scale);
		used++;
	}
	if (!ret && !used)
		ret = tk_err_set(err, TK_EDATA, "cannot parse '%s': no profiles in it", in->name);
	if (!ret && skipped)
		snprintf(p->warning, sizeof(p->warning),
			 "'%s': skipped %zu profile(s) whose unit differs from the first one's",
			 in->name, skipped);
out:
	json_decref(root);
	tk_buf_release(&text);
	free(s.frames);
	free(s.stack);
	return ret;
}

const struct tk_importer tk_import_speedscope = {
	.version = TK_IMPORTER_VERSION,
	.name = "speedscope",
	.summary = "speedscope JSON (sampled and evented profiles)",
	.probe = ss_probe,
	.parse = ss_parse,
};
