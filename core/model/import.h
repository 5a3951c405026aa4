#ifndef TK_IMPORT_H
#define TK_IMPORT_H
/*
 * Profile importers. An importer is a const struct tk_importer listed in
 * plugins/import/importers.c: `probe` looks at the first bytes of the input and
 * says whether it is its format; `parse` reads the whole input from a
 * bounded reader (core/base/reader.h) into a profile (core/model/profile.h).
 *
 * parse returns 0, or:
 *   TK_ENOTMINE      not this format at all;
 *   TK_EUNSUPPORTED  this format, a variant it does not handle (the
 *                    message says which);
 *   TK_EDATA         corrupt input, the message naming the file and the
 *                    line (text formats) or byte offset (binary ones).
 * Importers cap names, depths and sizes (core/model/profile.h limits), never
 * crash on hostile input, and set the profile's unit. Whatever the
 * importer, tk_import_file and tk_import_mem refuse (TK_EDATA) a profile
 * with a stack deeper than TK_PROFILE_MAX_DEPTH; the importers that can
 * check it sooner do, naming the line or offset. They keep names as
 * the input has them: tk_import_file and tk_import_mem then make them
 * readable (core/model/demangle.h) unless opts->no_demangle is set.
 *
 * To add an importer, see the checklist in plugins/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/err.h"
#include "core/model/profile.h"
#include "core/base/reader.h"

struct tk_import_opts {
	const char *event;       /* perf script: event name; NULL = the first seen */
	const char *sample_type; /* pprof: sample type; NULL = the last */
	const char *kind;        /* variant: "cpu", "alloc"...; NULL = default */
	int pid_frames;          /* perf script: a root frame per process */
	int tid_frames;          /* perf script: a root frame per thread */
	int no_demangle;         /* keep names as the file has them: mangled,
				  * with symbol versions (core/model/demangle.h) */
	int threads;             /* folded: 1 reads on one thread, 2 on two
				  * (reading and building the tree), 0 two
				  * for an input of a megabyte or more when
				  * two CPUs are allowed */
	uint64_t shared_max;     /* non-zero: the file lies where others may
				  * write (run --profile-file): tk_import_file
				  * opens it as tk_open_shared does (no link,
				  * a regular file, at most this many bytes) */
};

#define TK_IMPORTER_VERSION 1

struct tk_importer {
	int version; /* TK_IMPORTER_VERSION */
	const char *name;
	const char *summary;
	/* 1 when the head of the input looks like this format. */
	int (*probe)(const char *head, size_t len);
	int (*parse)(struct tk_reader *in, struct tk_profile *out,
		     const struct tk_import_opts *opts, struct tk_err *err);
	/* TK_DEMANGLE_* flags (core/model/demangle.h) that make mangled names
	 * read like the format's readable ones; 0 for most */
	unsigned demangle;
};

/* The importer called name, or NULL. */
/*
 * The lookups of the importers' table (plugins/import/importers.c): the importer named name;
 * the first whose probe takes head[0..len) (the most specific formats
 * first, folded last); the i-th in probe order. NULL when none.
 */
const struct tk_importer *tk_importer_find(const char *name);
const struct tk_importer *tk_importer_probe(const char *head, size_t len);
const struct tk_importer *tk_importer_at(size_t i);
/* Writes the importers' names to f, one a line, in probe order (tracker
 * flame --list-formats: scripts and tests read it). */
void tk_importer_list(FILE *f);

/*
 * Imports path into out (initialised by the caller): with format NULL the
 * first importer whose probe accepts the head of the file is used.
 * TK_EUSAGE for an unknown format name, TK_EDATA when no importer
 * recognises the content.
 */
int tk_import_file(const char *path, const char *format,
		   const struct tk_import_opts *opts, struct tk_profile *out,
		   struct tk_err *err);

/*
 * tk_import_file of two files at once, a into out_a and b into out_b, on
 * two threads (one when a thread cannot be made): importing is most of a
 * diff's work. Returns a's error first, then b's.
 */
int tk_import_pair(const char *a, const char *b, const char *format,
		   const struct tk_import_opts *opts, struct tk_profile *out_a,
		   struct tk_profile *out_b, struct tk_err *err);

/* The same from memory (fuzzers, tests); name labels messages. */
int tk_import_mem(const char *name, const char *data, size_t len, const char *format,
		  const struct tk_import_opts *opts, struct tk_profile *out,
		  struct tk_err *err);

#endif
