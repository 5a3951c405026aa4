/* TEMPORARY link stub: the helper owning this file replaces it whole. */
#include <string.h>
#include "core/config.h"
#include "core/ci.h"
void tk_config_init(struct tk_config *c) { memset(c, 0, sizeof(*c)); }
void tk_config_release(struct tk_config *c) { memset(c, 0, sizeof(*c)); }
int tk_config_load(const char *path, struct tk_config *c, struct tk_err *err) { return 0; }
int tk_config_find(const struct tk_env *env, struct tk_buf *out) { return 0; }
const struct tk_key_config *tk_config_key(const struct tk_config *c, const char *key) { return NULL; }
