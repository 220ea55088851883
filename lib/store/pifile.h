/*
 * pifile: pi's session files (JSONL, versions 1 to 3; man/pi-session.5)
 * read into memory and planned as sessions, and entries written as
 * their lines.
 *
 * Reading: pifile_read_fd parses every line, skipping (with a warning
 * through warn, naming FILE:LINE) those that are not JSON objects and
 * entries without a string type, and fails (PI_EXIT_INPUT) when a line
 * is longer than PI_MAX_LINE (found before it is all read), when the
 * first object is not a "session" header with a string id, or when the
 * header says a version newer than 3.  Versions 1 and 2 are migrated
 * as pi migrates them: ids and a parent chain for version 1, a
 * compaction's firstKeptEntryIndex (an index among the parsed lines,
 * the header being 0) turned into firstKeptEntryId, and the role
 * hookMessage renamed custom.  An entry whose id is taken by an earlier
 * one, or missing, is skipped with a warning; a parentId that names no
 * entry makes a root, as pi makes it.
 *
 * Planning: pi keeps a tree in one file and takes its last entry as the
 * leaf.  pifile_plan makes sessions of it, git's way: the first session
 * is the path from the root to that leaf; then each other leaf (an
 * entry without children), in file order, is a session branched at the
 * deepest of its ancestors that an earlier session holds (a new root
 * session when none does).  Every entry belongs to exactly one session,
 * and entries come in an order that puts each parent before its
 * children and otherwise keeps the file's.
 *
 * Writing: pifile_entry_line makes an entry's line with pi's key order:
 * type, id, parentId, timestamp, then the entry's own fields ("custom"
 * and "custom_message" put theirs before the id, as pi does).
 */
#ifndef PI_PIFILE_H
#define PI_PIFILE_H

#include <stddef.h>
#include <stdint.h>

struct json_object;
struct pi_error;

#define PIFILE_VERSION	3

struct pifile_entry {
	char *id;
	char *parent_id;	/* NULL: a root */
	const char *type;	/* borrowed from obj */
	const char *role;	/* a message's, borrowed from obj */
	int64_t ts;		/* Unix ms */
	/* The message for "message", else the other fields. */
	struct json_object *data;
	struct json_object *obj;	/* the whole line */
	size_t lineno;
	size_t kept_line;	/* version 1: firstKeptEntryIndex's line */
	/* The plan. */
	size_t parent;		/* index, or (size_t)-1 */
	size_t session;		/* index into sessions */
	size_t nchildren;
};

struct pifile_session {
	size_t first;		/* its first own entry (index) */
	size_t last;		/* its last */
	size_t bp;		/* branch point entry, or (size_t)-1 */
	size_t parent;		/* parent session, or (size_t)-1 */
	size_t count;		/* own entries */
};

struct pifile {
	struct json_object *header;
	const char *id;		/* the header's */
	const char *cwd;	/* or NULL */
	const char *parent_session;	/* or NULL */
	int64_t ts;
	int version;		/* as read, before migrating */
	struct pifile_entry *v;
	size_t n, cap;
	size_t *order;		/* entries, parents first: n of them */
	size_t *ix;		/* entries sorted by id, for pifile_find */
	struct pifile_session *sessions;
	size_t nsessions;
	size_t skipped;
};

void pifile_init(struct pifile *f);
void pifile_release(struct pifile *f);
int pifile_read_fd(struct pifile *f, int fd, const char *name,
    void (*warn)(void *, const char *), void *arg, struct pi_error *e);
/* Plan the sessions (see above); cannot fail but for memory. */
void pifile_plan(struct pifile *f);
/* After pifile_plan: the index of the entry with id, or (size_t)-1. */
size_t pifile_find(const struct pifile *f, const char *id);

/* ISO 8601 (pi's "2025-12-09T00:52:54.397Z") to and from Unix ms. */
int pifile_parse_time(const char *s, int64_t *ms);
void pifile_format_time(int64_t ms, char out[32]);

/*
 * A new line (no newline) for an entry: its data is a message when
 * type is "message".  The caller frees it.
 */
char *pifile_entry_line(const char *type, const char *id,
    const char *parent_id, int64_t ts, const char *data, size_t data_len,
    size_t *len);
/* The header line of a session file. */
char *pifile_header_line(const char *id, int64_t ts, const char *cwd,
    const char *parent_session, size_t *len);

#endif
