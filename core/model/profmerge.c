/*
 * The sum of call trees. tk_diff_build does the same walk to build the
 * union of a diff, but keeps every input's weights apart and averages
 * baselines; a sum needs neither, so this is the plain walk: children are
 * numbered after their parents in every tree the readers build, so one
 * pass in node order maps each node under its already mapped parent.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/base/buf.h"
#include "core/model/profmerge.h"
#include "core/base/banned.h"

int tk_profile_merge(struct tk_profile *into, const struct tk_profile *from,
		     struct tk_err *err)
{
	uint32_t *names = NULL, *map = NULL, i;
	int ret = 0;

	if (into->unit != from->unit)
		return tk_err_set(err, TK_EDATA, "cannot add a %s profile to a %s profile",
				  tk_unit_name(from->unit), tk_unit_name(into->unit));
	/* Variances add: the sum's variance per unit of weight is a weighted
	 * mean of the parts', at most the larger. */
	if (from->dispersion > into->dispersion)
		into->dispersion = from->dispersion;
	if (from->nr_nodes <= 1)
		return 0;
	names = tk_realloc_array(NULL, from->nr_names, sizeof(*names));
	names[0] = 0;
	for (i = 1; i < from->nr_names; i++) {
		names[i] = tk_profile_intern(into, from->names[i], from->name_lens[i]);
		tk_profile_copy_category(into, names[i], from, i);
	}
	map = tk_realloc_array(NULL, from->nr_nodes, sizeof(*map));
	map[TK_PROFILE_ROOT] = TK_PROFILE_ROOT;
	if (tk_profile_weight_error(into, from->sum))
		ret = tk_err_set(err, TK_EDATA, "cannot add profiles: the total is too large");
	else
		tk_profile_add_self(into, TK_PROFILE_ROOT, from->nodes[TK_PROFILE_ROOT].self);
	for (i = 1; !ret && i < from->nr_nodes; i++) {
		const struct tk_profile_node *n = &from->nodes[i];

		if (n->parent >= i) {
			ret = tk_err_set(err, TK_EINTERNAL,
					 "cannot add profiles: node %u comes before its parent", i);
			break;
		}
		map[i] = tk_profile_child(into, map[n->parent], names[n->name]);
		if (!map[i]) {
			ret = tk_err_set(err, TK_EDATA, "the sum of the profiles has more than %u "
					 "nodes", TK_PROFILE_MAX_NODES);
			break;
		}
		if (n->self != 0 && tk_profile_add_self(into, map[i], n->self)) {
			ret = tk_err_set(err, TK_EDATA, "cannot add profiles: the total is too large");
			break;
		}
	}
	into->finished = 0;
	free(names);
	free(map);
	return ret;
}
