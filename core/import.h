#ifndef TK_IMPORT_H
#define TK_IMPORT_H
/*
 * Profile importers (the seam; formats arrive with the profiles work).
 * An importer probes the first bytes of a file and parses it from a
 * bounded reader into a profile tree. parse returns TK_ENOTMINE ("not my
 * format"), TK_EUNSUPPORTED ("my format, a variant I do not handle") or
 * TK_EDATA ("corrupt", naming the file and line or offset).
 */
#include <stddef.h>

#include "core/err.h"

struct tk_reader;
struct tk_profile;

#define TK_IMPORTER_VERSION 1

struct tk_importer {
	int version; /* TK_IMPORTER_VERSION */
	const char *name;
	/* 1 when the head of the input looks like this format. */
	int (*probe)(const char *head, size_t len);
	int (*parse)(struct tk_reader *in, struct tk_profile *out, struct tk_err *err);
};

#endif
