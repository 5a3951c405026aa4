#ifndef TK_ENV_H
#define TK_ENV_H
/*
 * The environment as code outside cmd/ reads it: a table of variables
 * behind two functions, so that tests hand a fixture where a run would
 * read the process's own environment (tk_env_process). A foundation
 * piece: it includes nothing of tracker's.
 */
struct tk_env {
	/* Returns the value of name, or NULL when unset. */
	const char *(*get)(void *data, const char *name);
	void *data;
	/* Working directory for the local git provider; NULL: the process's. */
	const char *workdir;
	/*
	 * Optional: calls fn(name, value, arg) for every variable, in no
	 * particular order, stopping early when fn returns non-zero and
	 * returning that value (0 after a full walk). NULL means the table
	 * cannot be enumerated; providers that need "every variable with a
	 * prefix" (Buildkite agent tags) then skip that part.
	 */
	int (*each)(void *data,
		    int (*fn)(const char *name, const char *value, void *arg),
		    void *arg);
};

/* The process environment (getenv). */
extern const struct tk_env tk_env_process;

static inline const char *tk_env_get(const struct tk_env *env, const char *name)
{
	return env->get(env->data, name);
}

/* tk_env_each: env->each when the table can enumerate, else 0 and no calls. */
static inline int tk_env_each(const struct tk_env *env,
			      int (*fn)(const char *name, const char *value, void *arg),
			      void *arg)
{
	return env->each ? env->each(env->data, fn, arg) : 0;
}

#endif
