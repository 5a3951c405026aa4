#ifndef TK_DIFFSUM_H
#define TK_DIFFSUM_H
/*
 * What a diff says in words, before any picture: the totals and the
 * frames that changed most. Every diff output opens with them (the HTML
 * header and its "what changed" table, the SVG subtitle, the PNG's
 * lines under the title, the first lines of .txt), so a reader sees what
 * changed without hunting through the graph; docs/diff-pages.md.
 *
 * A change is a node of the union (core/analyze/diff.h) that tk_diff_classify
 * calls UP, DOWN, NEW or VANISHED in a mode; NOISE is never listed.
 * Self changes rank every node but the root; cumulative changes too,
 * but the root's cumulative change is the total, said on its own line
 * (and so is that of a frame every stack passes through: main), and a
 * caller one of whose children's change is its own within 10% is left
 * for that child (the chain main <- _start <- ... adds nothing to the
 * deepest frame of it).
 * With o->category set, only frames of that category are counted and
 * listed (tracker diff --category gc: what changed in the collector).
 * Rows are ranked by |new - base|, ties by node id, so the lists are
 * the same on every run. A NEW frame counts as an increase, a VANISHED
 * one as a decrease.
 *
 * Values are the diff's (after normalization). The totals line shows
 * the measured totals, not the scaled ones: base is the baselines' mean
 * total before scaling (tk_diff.base_raw_sum), so normalizing to the
 * same total never hides what changed overall.
 *
 * Nothing here prints; text goes into a tk_buf. Names are copied as
 * they are: each output escapes them for its format.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/analyze/diff.h"

struct tk_diff_change {
	uint32_t node;
	enum tk_diff_class cls;
	double base, now;   /* self or total, for the list's mode */
};

struct tk_diff_list {
	struct tk_diff_change *rows; /* largest change first */
	size_t nr;
};

struct tk_diff_summary {
	/* [mode]: TK_DIFF_SELF, TK_DIFF_CUMULATIVE */
	struct tk_diff_list up[2], down[2];
	size_t nr_new, nr_vanished; /* frames, decided on totals */
	size_t nr_noise;            /* self changes within the noise floor */
};

/*
 * Fills s with the top `top` increases and decreases of d in each mode
 * (top 0: 30). Linear in d's nodes; a diff of 65536 nodes or more is
 * walked in two halves on two threads (one when a thread cannot be made),
 * with the same result. d is only read. Release s with
 * tk_diff_summary_release.
 */
void tk_diff_summarize(const struct tk_diff *d, const struct tk_diff_opts *o, size_t top,
		       struct tk_diff_summary *s);
void tk_diff_summary_release(struct tk_diff_summary *s);

/*
 * What the profile measures, for the totals line: from the profile kind
 * of a stored run ("cpu", "alloc", "alloc_count", "heap_peak"; NULL for
 * a file) and the unit: "CPU time", "allocations", "allocation count",
 * "peak heap"; else "time", "bytes", "samples" or "count".
 */
const char *tk_diff_quantity(const char *kind, enum tk_unit unit);

/* One weight in the unit's human form: "1.25 s", "121 MiB", "3 217";
 * with sign, a leading + or -. */
void tk_diff_add_value(struct tk_buf *b, enum tk_unit unit, double w, int sign);

/* "+50.4%", or "new" when base is 0 (and now is not), "-100%" to nothing */
void tk_diff_add_percent(struct tk_buf *b, double base, double now);

/*
 * The totals line, e.g. "allocations 121 MiB -> 182 MiB (+50.4%)", and
 * after it, when the baseline was scaled, "; baseline scaled x1.29 to
 * the same total" (or "by the walltimes"), and the number of baseline
 * runs when there are several: "; baseline: mean of 5 runs".
 */
void tk_diff_add_totals(struct tk_buf *b, const struct tk_diff *d,
			const struct tk_diff_opts *o, const char *quantity);

/* "baseline scaled x1.29 to the same total": the note every scaled
 * number carries; nothing when the diff is not scaled. */
void tk_diff_add_scaling(struct tk_buf *b, const struct tk_diff *d,
			 const struct tk_diff_opts *o);

/* s[0..len) (len 0: strlen) on one line: more than 80 bytes are cut at
 * a character boundary, with "...", and control bytes are shown as
 * "\xNN" (tk_text_escape, core/base/escape.h). */
void tk_diff_add_name(struct tk_buf *b, const char *s, size_t len);

/* A frame's call path, leaf first, "leaf <- caller <- ...", at most
 * `frames` frames (0: all), each name at most 80 bytes and made one line
 * (control bytes become spaces). */
void tk_diff_add_path(struct tk_buf *b, const struct tk_profile *p, uint32_t node,
		      unsigned frames);

/* One change in a line: "radiation <- physics  +100.2% (+61.0 MiB)". */
void tk_diff_add_change(struct tk_buf *b, const struct tk_diff *d,
			const struct tk_diff_change *c, unsigned frames);

#endif
