/* TEMPORARY link stub: the helper owning this file replaces it whole. */
#include "cmd/cmd.h"
const char cmd_push_usage[] = "usage: tracker push\n\n(not written yet)\n";
int cmd_push(int argc, char **argv, struct cmd_ctx *ctx) { return 70; }
