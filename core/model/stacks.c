#include "core/model/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/banned.h"

static int cmp_line(const void *a, const void *b, void *arg)
{
	const struct tk_stack_line *x = a, *y = b;
	const char *base = arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(base + x->off, base + y->off, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int count_like(char c)
{
	return c == ' ' || c == '\t' || c == '.' || (c >= '0' && c <= '9');
}

static void add_escaped(struct tk_buf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

	tk_buf_add(b, e, 4);
}

/* Appends s[0..len) as the contract in stacks.h says: first when it
 * starts the path; tail, the start of a count-like tail when it may end
 * it (len when it does not). */
static void add_name(struct tk_buf *b, const char *s, size_t len, int first, size_t tail)
{
	size_t i, plain = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];
		int esc = c == ';' || c == '\n' || c == '\r' || c == '\0' ||
			  (c == '\\' && i + 3 < len && s[i + 1] == 'x' && is_hex(s[i + 2]) &&
			   is_hex(s[i + 3])) ||
			  (c == '#' && first && !i) || ((c == ' ' || c == '\t') && i >= tail);

		if (!esc)
			continue;
		tk_buf_add(b, s + plain, i - plain);
		add_escaped(b, (unsigned char)c);
		plain = i + 1;
	}
	tk_buf_add(b, s + plain, len - plain);
}

/* Where the tail of s[0..len) made of count-like bytes starts, when a
 * space or tab is in it; len when the name cannot pass for a count. */
static size_t count_tail(const char *s, size_t len)
{
	size_t i = len;
	int blank = 0;

	while (i && count_like(s[i - 1])) {
		i--;
		blank |= s[i] == ' ' || s[i] == '\t';
	}
	return blank ? i : len;
}

/* Depth-first with an explicit stack (profiles can be 65536 deep),
 * keeping the path text of the current node and its length per depth. */
void tk_stack_list_build(const struct tk_profile *p, tk_stack_keep_fn keep, void *data,
			 struct tk_stack_list *out)
{
	struct tk_buf path = TK_BUF_INIT;
	size_t *plen = NULL, plen_alloc = 0, sp = 0, stack_alloc = 0;
	uint32_t *stack = NULL, *depth_of = tk_xcalloc(p->nr_nodes ? p->nr_nodes : 1,
						      sizeof(uint32_t));

	tk_buf_init(&out->text, 0);
	TK_ALLOC_GROW(stack, 1, stack_alloc);
	stack[sp++] = TK_PROFILE_ROOT;
	while (sp) {
		uint32_t n = stack[--sp], c, d = depth_of[n];

		if (n != TK_PROFILE_ROOT) {
			const char *name = tk_profile_name(p, n);
			size_t len = p->name_lens[p->nodes[n].name], start;

			TK_ALLOC_GROW(plen, d + 1, plen_alloc);
			tk_buf_setlen(&path, d > 1 ? plen[d - 1] : 0);
			if (d > 1)
				tk_buf_addch(&path, ';');
			start = path.len;
			add_name(&path, name, len, d == 1, len);
			plen[d] = path.len;
			if (keep(p, n, data)) {
				size_t tail = count_tail(name, len);

				TK_ALLOC_GROW(out->lines, out->nr + 1, out->alloc);
				out->lines[out->nr].off = out->text.len;
				out->lines[out->nr].node = n;
				if (tail == len) {
					tk_buf_add(&out->text, path.buf, path.len);
				} else {
					/* the last name: its tail must not read as a count */
					tk_buf_add(&out->text, path.buf, start);
					add_name(&out->text, name, len, d == 1, tail);
				}
				out->lines[out->nr].len = out->text.len - out->lines[out->nr].off;
				out->nr++;
			}
		}
		for (c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling) {
			TK_ALLOC_GROW(stack, sp + 1, stack_alloc);
			depth_of[c] = d + 1;
			stack[sp++] = c;
		}
	}
	qsort_r(out->lines, out->nr, sizeof(*out->lines), cmp_line, out->text.buf);
	tk_buf_release(&path);
	free(plen);
	free(stack);
	free(depth_of);
}

void tk_stack_list_release(struct tk_stack_list *l)
{
	tk_buf_release(&l->text);
	free(l->lines);
	memset(l, 0, sizeof(*l));
}
