/* TEMPORARY link stub: the helper owning this file replaces it whole. */
#include "cmd/cmd.h"
const char cmd_history_usage[] = "usage: tracker history\n\n(not written yet)\n";
int cmd_history(int argc, char **argv, struct cmd_ctx *ctx) { return 70; }
