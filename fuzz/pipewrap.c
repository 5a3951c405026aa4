/*
 * libFuzzer target for tracker pipeline wrap (core/ci/pipewrap.c). `make fuzz`
 * builds it as fuzz/fuzz-pipewrap and seeds it from fixtures/pipelines/.
 * Besides crashes, leaks and sanitizer reports, it stops on two broken
 * promises: a wrapped pipeline that libyaml cannot parse, and wrapping
 * the output again changing it (wrapping twice must equal wrapping once).
 * An error return is the expected outcome for garbage.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/ci/pipewrap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parses(const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int ok = 1, done = 0;

	if (!yaml_parser_initialize(&parser))
		abort();
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			fprintf(stderr, "wrapped output does not parse: %s at %zu:%zu\n",
				parser.problem ? parser.problem : "?",
				parser.problem_mark.line + 1, parser.problem_mark.column + 1);
			ok = 0;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_pipewrap_opts opts = { NULL, 0, 1, NULL, NULL };
	struct tk_buf once = TK_BUF_INIT, twice = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;

	if (!tk_pipewrap("fuzz-input", (const char *)data, size, &opts, &once, NULL, &err)) {
		if (!parses(once.buf, once.len))
			abort();
		if (tk_pipewrap("fuzz-output", once.buf, once.len, &opts, &twice, NULL, &err)) {
			fprintf(stderr, "wrapped output is refused: %s\n", err.msg);
			abort();
		}
		if (twice.len != once.len || memcmp(twice.buf, once.buf, once.len)) {
			fprintf(stderr, "wrapping twice differs from wrapping once\n");
			abort();
		}
	}
	tk_buf_release(&once);
	tk_buf_release(&twice);
	return 0;
}
