/*
 * Aligned tables and CSV fields for text output.
 */
#include "core/base/table.h"

#include "core/base/escape.h"

#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/base/utf8.h"

#include "core/base/banned.h"

void tk_table_init(struct tk_table *t, size_t ncols, const char *const *headers,
		   const unsigned char *right)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->headers = headers;
	t->right = right;
}

static void print_row(const struct tk_table *t, const char *const *cells,
		      const size_t *w, FILE *f);
static size_t width(const char *s);
static void measure(const struct tk_table *t, size_t *w);

static void free_cells(struct tk_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_cells; i++)
		free(t->cells[i]);
	t->nr_cells = 0;
}

/* A streaming table's full row: the window printed when it fills, each
 * later row at once. */
static void stream_row(struct tk_table *t)
{
	size_t c;

	if (!t->w) {
		if (tk_table_rows(t) < t->window)
			return;
		tk_table_print(t, t->stream);
		t->w = tk_xcalloc(t->ncols ? t->ncols : 1, sizeof(*t->w));
		measure(t, t->w);
		free_cells(t);
		return;
	}
	for (c = 0; c < t->ncols; c++) {
		size_t n = width(t->cells[c]);

		if (n > t->w[c])
			t->w[c] = n;
	}
	print_row(t, (const char *const *)t->cells, t->w, t->stream);
	free_cells(t);
}

void tk_table_add(struct tk_table *t, const char *cell)
{
	struct tk_buf b = TK_BUF_INIT;

	TK_ALLOC_GROW(t->cells, t->nr_cells + 1, t->alloc);
	tk_text_shown(&b, cell);
	t->cells[t->nr_cells++] = tk_buf_detach(&b, NULL);
	if (t->stream && t->ncols && t->nr_cells % t->ncols == 0)
		stream_row(t);
}

void tk_table_stream(struct tk_table *t, FILE *f, size_t window)
{
	t->stream = f;
	t->window = window ? window : 1;
}

size_t tk_table_rows(const struct tk_table *t)
{
	return t->ncols ? t->nr_cells / t->ncols : 0;
}

/*
 * The C.UTF-8 locale, whatever the process's own is: the cells are UTF-8
 * (or escaped bytes) regardless of LANG. NULL when the C library has no
 * such locale.
 */
static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_locale_init(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/*
 * Display width in terminal columns, as glibc's wcwidth says under
 * C.UTF-8: a CJK character takes two, a combining mark none. A byte that
 * does not decode takes one (a terminal shows U+FFFD). Without C.UTF-8,
 * each UTF-8 lead byte counts one.
 */
static size_t width(const char *s)
{
	size_t n = 0, left = strlen(s);
	locale_t old;
	mbstate_t st;

	pthread_once(&utf8_once, utf8_locale_init);
	if (!utf8_locale) {
		for (; *s; s++)
			if (((unsigned char)*s & 0xc0) != 0x80)
				n++;
		return n;
	}
	old = uselocale(utf8_locale);
	memset(&st, 0, sizeof(st));
	while (left) {
		wchar_t wc;
		size_t len = mbrtowc(&wc, s, left, &st);
		int w;

		if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
			memset(&st, 0, sizeof(st));
			len = 1;
			w = 1;
		} else {
			w = wcwidth(wc);
			if (w < 0)
				w = 1;
		}
		n += (size_t)w;
		s += len;
		left -= len;
	}
	uselocale(old);
	return n;
}

static void print_row(const struct tk_table *t, const char *const *cells,
		      const size_t *w, FILE *f)
{
	size_t c;

	for (c = 0; c < t->ncols; c++) {
		size_t pad = w[c] - width(cells[c]);
		int last = c + 1 == t->ncols;

		if (t->right && t->right[c])
			fprintf(f, "%*s%s", (int)pad, "", cells[c]);
		else if (last)
			fputs(cells[c], f);
		else
			fprintf(f, "%s%*s", cells[c], (int)pad, "");
		fputs(last ? "\n" : "  ", f);
	}
}

/* The widest of each column's header and cells, in w. */
static void measure(const struct tk_table *t, size_t *w)
{
	size_t r, c, rows = tk_table_rows(t);

	for (c = 0; c < t->ncols; c++)
		w[c] = width(t->headers[c]);
	for (r = 0; r < rows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t n = width(t->cells[r * t->ncols + c]);

			if (n > w[c])
				w[c] = n;
		}
}

void tk_table_print(const struct tk_table *t, FILE *f)
{
	size_t *w, r, rows = tk_table_rows(t);

	if (t->w && t->stream)
		return; /* printed as the rows came */
	w = tk_xcalloc(t->ncols ? t->ncols : 1, sizeof(*w));
	measure(t, w);
	print_row(t, t->headers, w, f);
	for (r = 0; r < rows; r++)
		print_row(t, (const char *const *)t->cells + r * t->ncols, w, f);
	free(w);
}

void tk_table_release(struct tk_table *t)
{
	free_cells(t);
	free(t->cells);
	free(t->w);
	t->cells = NULL;
	t->w = NULL;
	t->alloc = 0;
}

static void csv_field(struct tk_buf *out, const char *s, int neutralize)
{
	int formula, quote;
	const char *p;

	if (!s)
		return;
	formula = neutralize && *s && strchr("=+-@\t\r", *s);
	quote = strpbrk(s, ",\"\r\n") != NULL;
	if (!quote && !formula) {
		/* the common case, in one append: history writes thousands */
		tk_buf_adds(out, s);
		return;
	}
	if (quote)
		tk_buf_addch(out, '"');
	if (formula)
		tk_buf_addch(out, '\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			tk_buf_addch(out, '"');
		tk_buf_addch(out, *p);
	}
	if (quote)
		tk_buf_addch(out, '"');
}

void tk_csv_text(struct tk_buf *out, const char *s)
{
	csv_field(out, s, 1);
}

void tk_csv_raw(struct tk_buf *out, const char *s)
{
	csv_field(out, s, 0);
}
