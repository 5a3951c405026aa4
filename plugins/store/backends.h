#ifndef TK_PLUGINS_STORE_BACKENDS_H
#define TK_PLUGINS_STORE_BACKENDS_H
/*
 * The store backends: each a const struct tk_store_ops
 * (core/store/store.h) in a file of this folder that exports only it. The
 * table of them is in backends.c, the one file that names them: core/ and
 * cmd/ reach them only through the lookups core/store/store.h declares. To
 * add one, write the file, declare it here, list it in the table, and test
 * it (plugins/README.md).
 */
#include "core/store/store.h"

extern const struct tk_store_ops tk_store_sqlite;
extern const struct tk_store_ops tk_store_postgres;

#endif
