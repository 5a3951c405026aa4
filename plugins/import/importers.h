#ifndef TK_PLUGINS_IMPORT_IMPORTERS_H
#define TK_PLUGINS_IMPORT_IMPORTERS_H
/*
 * The importers: each a const struct tk_importer (core/model/import.h) in
 * a file of this folder that exports only it. The table of them is in
 * importers.c, the one file that names them: core/ and cmd/ reach them
 * only through the lookups core/model/import.h declares. To add one, write
 * the file, declare it here, list it in the table, and test it
 * (plugins/README.md).
 */
#include "core/model/import.h"

extern const struct tk_importer tk_import_pprof;
extern const struct tk_importer tk_import_speedscope;
extern const struct tk_importer tk_import_cpuprofile;
extern const struct tk_importer tk_import_profilecanvas;
extern const struct tk_importer tk_import_nsys;
extern const struct tk_importer tk_import_gperf_heap;
extern const struct tk_importer tk_import_gperf_cpu;
extern const struct tk_importer tk_import_perf;
extern const struct tk_importer tk_import_dtrace;
extern const struct tk_importer tk_import_folded;

#endif
