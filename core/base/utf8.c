#include "core/base/utf8.h"

#include "core/base/banned.h"

size_t tk_utf8_seqlen(const unsigned char *p, size_t left)
{
	unsigned c = p[0];
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

int tk_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = tk_utf8_seqlen(p, (size_t)(end - p));

		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

void tk_utf8_sanitize(struct tk_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		const unsigned char *run = p;

		while (p < end) {
			size_t n = tk_utf8_seqlen(p, (size_t)(end - p));

			if (!n)
				break;
			p += n;
		}
		tk_buf_add(out, run, (size_t)(p - run));
		if (p < end) {
			tk_buf_adds(out, "\xef\xbf\xbd");
			p++;
		}
	}
}
