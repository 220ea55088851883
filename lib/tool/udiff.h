/*
 * udiff: the unified diff (diff -u, three lines of context) of a text
 * and the text made from it by known replacements, as edit makes them.
 *
 * The caller says which byte ranges of the old text were replaced and
 * by how many bytes, so no edit script is searched for across the file.
 * Each change is widened to whole lines and changes whose lines touch
 * become one; lines it leaves as they were at either end are dropped,
 * and inside what remains a longest common subsequence of its lines
 * finds those a model sent back unchanged, so that they show as context.
 * A region whose table would pass UDIFF_LCS_CELLS cells, (old lines + 1)
 * times (new lines + 1), is shown whole.
 *
 * Texts are bytes with LF line ends; a last line without one is marked
 * "\ No newline at end of file", as diff(1) does.  The diff is appended
 * to a buf: an addition that would pass its ceiling is left out (see
 * buf.h), so size the ceiling for the diff.  Nothing is allocated that
 * outlives the call, and nothing can fail but memory (xmalloc exits).
 */
#ifndef PI_UDIFF_H
#define PI_UDIFF_H

#include <stddef.h>

struct buf;

#define UDIFF_CONTEXT	3	/* lines around a change */
#define UDIFF_LCS_CELLS	(1u << 20) /* larger regions are not split */

/* One replacement: old text [at, at + old_len) became new_len bytes. */
struct udiff_change {
	size_t at;
	size_t old_len;
	size_t new_len;
};

/*
 * Append to d the diff of base (blen bytes) to res (rlen), headed
 * "--- a/name" and "+++ b/name".  res must be base with the n changes
 * applied, and the changes sorted by at, none overlapping another.
 * Returns the 1-based number of the first changed line of res, or 0 when
 * no line changed, in which case nothing is appended.
 */
size_t udiff_append(struct buf *d, const char *name, const char *base,
    size_t blen, const char *res, size_t rlen,
    const struct udiff_change *c, size_t n);

#endif
