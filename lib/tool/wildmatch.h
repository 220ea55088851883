/*
 * wildmatch: one pattern of git's wildmatch syntax with WM_PATHNAME
 * (pathmatch.h says what it means), compiled into the steps of a
 * nondeterministic automaton, then run on texts.  A run keeps the set
 * of steps each text position can be at, as RE2 and Rust's globset
 * do, so it costs at most the text's length times the pattern's, for
 * any number of stars: backtracking, as git does, is exponential in
 * the number of "**".  The answers are the same as git's.
 *
 * wildmatch_compile keeps pointers into pat, which must outlive w and
 * stay unchanged; wildmatch_release frees what it allocated.  With
 * fold, ASCII letters match in either case.  Nothing here fails but
 * memory, which exits as xmalloc does.
 */
#ifndef PI_WILDMATCH_H
#define PI_WILDMATCH_H

#include <stddef.h>

struct wildmatch_step;

struct wildmatch {
	struct wildmatch_step *step;
	size_t n;
};

void wildmatch_compile(struct wildmatch *w, const char *pat);
/* 1 if all of text matches, else 0. */
int wildmatch_run(const struct wildmatch *w, const char *text, int fold);
void wildmatch_release(struct wildmatch *w);
/* p is at '[': the ']' that closes its class, or NULL if none does. */
const char *wildmatch_class_end(const char *p);

#endif
