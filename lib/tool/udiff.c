/*
 * udiff: see udiff.h.  A change becomes a block of whole lines, kept
 * by line number and byte offset in both texts at once, so that a hunk
 * is printed straight from the two texts without splitting either into
 * lines; only add_split indexes lines, and only those of its block.
 */
#include "udiff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "core/banned.h"

struct line {			/* a line of a block in the diff */
	size_t no;		/* 0-based line number */
	size_t off;		/* byte offset of its start */
};

struct block {			/* a changed run of whole lines */
	struct line oa, ob;	/* old lines [oa, ob) */
	struct line na, nb;	/* new lines [na, nb) */
};

struct blocks {
	struct block *v;
	size_t n, cap;
};

static size_t
line_start(const char *p, size_t at)
{
	while (at > 0 && p[at - 1] != '\n')
		at--;
	return at;
}

static size_t
line_end(const char *p, size_t n, size_t at)
{
	const char *q = memchr(p + at, '\n', n - at);

	return q ? (size_t)(q - p) + 1 : n;
}

/* Lines in p[a..b), each ending in '\n' but perhaps the last. */
static size_t
lines_in(const char *p, size_t a, size_t b)
{
	return pi_count_lf(p + a, b - a) + (b > a && p[b - 1] != '\n');
}

static int
line_eq(const char *x, size_t xa, size_t xn, const char *y, size_t ya,
    size_t yn)
{
	size_t lx = line_end(x, xn, xa) - xa, ly = line_end(y, yn, ya) - ya;

	return lx == ly && memcmp(x + xa, y + ya, lx) == 0;
}

/* Start of the line before the one at off (which is not the first). */
static size_t
prev_line(const char *p, size_t off)
{
	return line_start(p, off - 1);
}

/* Shrink a block by the lines it leaves as they were. */
static void
trim_block(struct block *b, const char *base, size_t blen, const char *res,
    size_t rlen)
{
	while (b->oa.no < b->ob.no && b->na.no < b->nb.no &&
	    line_eq(base, b->oa.off, blen, res, b->na.off, rlen)) {
		b->oa.off = line_end(base, blen, b->oa.off), b->oa.no++;
		b->na.off = line_end(res, rlen, b->na.off), b->na.no++;
	}
	while (b->oa.no < b->ob.no && b->na.no < b->nb.no) {
		size_t o = prev_line(base, b->ob.off), n = prev_line(res,
		    b->nb.off);

		if (b->ob.off - o != b->nb.off - n ||
		    memcmp(base + o, res + n, b->ob.off - o) != 0)
			break;
		b->ob.off = o, b->ob.no--;
		b->nb.off = n, b->nb.no--;
	}
}

static void
add_lines(struct buf *d, char mark, const char *p, size_t a, size_t b)
{
	size_t e;

	for (; a < b; a = e) {
		e = line_end(p, b, a);
		(void)buf_addc(d, mark);
		(void)buf_add(d, p + a, e - a);
		if (p[e - 1] != '\n')
			(void)buf_adds(d, "\n\\ No newline at end of file\n");
	}
}

static void
add_range(struct buf *d, char sign, size_t start, size_t count)
{
	if (count == 1)
		(void)buf_addf(d, "%c%zu", sign, start + 1);
	else
		(void)buf_addf(d, "%c%zu,%zu", sign, count ? start + 1 : start,
		    count);
}

/* One hunk: blocks b[0..n), UDIFF_CONTEXT lines around. */
static void
add_hunk(struct buf *d, const struct block *b, size_t n, const char *base,
    size_t blen, const char *res)
{
	size_t hs = b[0].oa.off, hsno = b[0].oa.no, he = b[n - 1].ob.off;
	size_t heno = b[n - 1].ob.no, i, oldn, newn;

	for (i = 0; i < UDIFF_CONTEXT && hs > 0; i++)
		hs = prev_line(base, hs), hsno--;
	for (i = 0; i < UDIFF_CONTEXT && he < blen; i++)
		he = line_end(base, blen, he), heno++;
	oldn = heno - hsno;
	newn = oldn;
	for (i = 0; i < n; i++)
		newn = newn + (b[i].nb.no - b[i].na.no) - (b[i].ob.no -
		    b[i].oa.no);
	(void)buf_adds(d, "@@ ");
	add_range(d, '-', hsno, oldn);
	(void)buf_addc(d, ' ');
	add_range(d, '+', b[0].na.no - (b[0].oa.no - hsno), newn);
	(void)buf_adds(d, " @@\n");
	add_lines(d, ' ', base, hs, b[0].oa.off);
	for (i = 0; i < n; i++) {
		if (i > 0)
			add_lines(d, ' ', base, b[i - 1].ob.off, b[i].oa.off);
		add_lines(d, '-', base, b[i].oa.off, b[i].ob.off);
		add_lines(d, '+', res, b[i].na.off, b[i].nb.off);
	}
	add_lines(d, ' ', base, b[n - 1].ob.off, he);
}

static void
add_block(struct blocks *bs, const struct block *b)
{
	struct block *last = bs->n ? &bs->v[bs->n - 1] : NULL;

	if (b->oa.no == b->ob.no && b->na.no == b->nb.no)
		return;
	/* Changes that touch are one, as diff(1) prints them. */
	if (last != NULL && last->ob.no == b->oa.no) {
		last->ob = b->ob;
		last->nb = b->nb;
		return;
	}
	if (bs->n == bs->cap) {
		bs->cap = bs->cap ? 2 * bs->cap : 16;
		bs->v = xrealloc(bs->v, bs->cap * sizeof(*bs->v));
	}
	bs->v[bs->n++] = *b;
}

/* Offsets of the n lines of p[a..b), and b after them. */
static size_t *
line_offsets(const char *p, size_t a, size_t b, size_t n)
{
	size_t *off = xcalloc(n + 1, sizeof(*off)), i;

	for (i = 0; i < n; i++, a = line_end(p, b, a))
		off[i] = a;
	off[n] = b;
	return off;
}

static int
same_line(const char *x, const size_t *xo, size_t i, const char *y,
    const size_t *yo, size_t j)
{
	return xo[i + 1] - xo[i] == yo[j + 1] - yo[j] &&
	    memcmp(x + xo[i], y + yo[j], xo[i + 1] - xo[i]) == 0;
}

/*
 * Add b split into the changes a longest common subsequence of its lines
 * leaves, so that lines sent back unchanged inside a replacement show as
 * context.  A region too large for the table is added whole.
 */
static void
add_split(struct blocks *bs, const struct block *b, const char *base,
    const char *res)
{
	size_t n = b->ob.no - b->oa.no, m = b->nb.no - b->na.no, w = m + 1;
	size_t *oo, *no, i, j, ci = 0, cj = 0;
	struct block c;
	uint32_t *t, down, right;
	int open = 0;

	if (n == 0 || m == 0 || n + 1 > UDIFF_LCS_CELLS / w) {
		add_block(bs, b);
		return;
	}
	oo = line_offsets(base, b->oa.off, b->ob.off, n);
	no = line_offsets(res, b->na.off, b->nb.off, m);
	t = xcalloc((n + 1) * w, sizeof(*t));
	for (i = n; i-- > 0; )
		for (j = m; j-- > 0; ) {
			down = t[(i + 1) * w + j], right = t[i * w + j + 1];
			if (same_line(base, oo, i, res, no, j))
				t[i * w + j] = t[(i + 1) * w + j + 1] + 1;
			else
				t[i * w + j] = down > right ? down : right;
		}
	/* Walk the table; each run between common lines is a change. */
	for (i = 0, j = 0; i <= n && j <= m; ) {
		if ((i == n && j == m) || (i < n && j < m &&
		    same_line(base, oo, i, res, no, j))) {
			if (open) {
				c.oa = (struct line){ b->oa.no + ci, oo[ci] };
				c.ob = (struct line){ b->oa.no + i, oo[i] };
				c.na = (struct line){ b->na.no + cj, no[cj] };
				c.nb = (struct line){ b->na.no + j, no[j] };
				add_block(bs, &c);
				open = 0;
			}
			i++, j++;
			continue;
		}
		if (!open)
			ci = i, cj = j, open = 1;
		if (j == m || (i < n && t[(i + 1) * w + j] >= t[i * w + j + 1]))
			i++;
		else
			j++;
	}
	free(t);
	free(oo);
	free(no);
}

size_t
udiff_append(struct buf *d, const char *name, const char *base,
    size_t blen, const char *res, size_t rlen,
    const struct udiff_change *c, size_t n)
{
	struct blocks bs = { NULL, 0, 0 };
	struct block b;
	size_t i = 0, j, s, e, re, end, rend, first = 0;
	size_t bno = 0, boff = 0, rno = 0, roff = 0;
	long long delta = 0, dstart;

	while (i < n) {
		/* Changes whose whole lines touch make one block. */
		s = line_start(base, c[i].at);
		dstart = delta;
		for (j = i;; ) {
			delta += (long long)c[j].new_len -
			    (long long)c[j].old_len;
			e = c[j].at + c[j].old_len;
			re = (size_t)((long long)e + delta);
			end = (e == 0 || base[e - 1] == '\n') && (re == 0 ||
			    res[re - 1] == '\n') ? e : line_end(base, blen, e);
			if (++j == n || line_start(base, c[j].at) >= end)
				break;
		}
		rend = (size_t)((long long)end + delta);
		bno += pi_count_lf(base + boff, s - boff), boff = s;
		rno += pi_count_lf(res + roff, (size_t)((long long)s + dstart) -
		    roff), roff = (size_t)((long long)s + dstart);
		b.oa = (struct line){ bno, s };
		b.ob = (struct line){ bno + lines_in(base, s, end), end };
		b.na = (struct line){ rno, roff };
		b.nb = (struct line){ rno + lines_in(res, roff, rend), rend };
		trim_block(&b, base, blen, res, rlen);
		add_split(&bs, &b, base, res);
		i = j;
	}
	if (bs.n > 0) {
		first = bs.v[0].na.no + 1;
		(void)buf_addf(d, "--- a/%s\n+++ b/%s\n", name, name);
	}
	for (i = 0; i < bs.n; i = j) {
		for (j = i + 1; j < bs.n && bs.v[j].oa.no - bs.v[j - 1].ob.no <=
		    2 * UDIFF_CONTEXT; j++)
			;
		add_hunk(d, bs.v + i, j - i, base, blen, res);
	}
	free(bs.v);
	return first;
}
