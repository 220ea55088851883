/*
 * store: the session tree in one SQLite database; every SQL statement
 * of pi-sess lives here.  The model is git's: entries are commits and
 * sessions are branches (man/pi-session.5 has the schema).
 *
 * An entry is immutable.  It belongs to the session that appended it
 * (its origin) and is numbered 1, 2, ... there; its parent is the
 * origin's previous entry, or, for number 1, the session's branch
 * point (none for a root).  So a session's own entries are one chain,
 * stored together (the table is clustered on (session, number)), and
 * the path from any entry to the root is a handful of range scans: one
 * per session it crosses, whatever the size of the database.
 *
 * A session's head is its last own entry, or its branch point while it
 * has none.  Appending adds the next number and moves only that head.
 * Branching makes a session whose branch point is the entry: nothing is
 * copied.  Nothing is ever updated in place but a session's counters,
 * name, activity time and run lock.
 *
 * Every way in goes through store_append, which checks the entry
 * (entry.h) and seals it to its parent with a hash (chain.h) in the
 * same transaction; store_check finds an entry changed since.
 *
 * Every function returns 0 (or a count, or 1 for "found") on success
 * and -1 with e filled on failure: e->status is PI_EXIT_CONFIG for a
 * database that is not ours or too new, PI_EXIT_TEMP when it stayed
 * busy past the timeout, PI_EXIT_INPUT for an unknown or ambiguous id
 * or an entry the store refuses, and PI_EXIT_FAIL for anything else,
 * with the cause in e->code (sql.h: disk_full, read_only, ...).  Strings in the
 * records handed to callbacks are SQLite's and valid only during the
 * call; those in a struct store_session are the struct's own.
 */
#ifndef PI_STORE_H
#define PI_STORE_H

#include <stddef.h>
#include <stdint.h>

struct json_object;
struct pi_error;
struct sqlite3;

#define STORE_SCHEMA		2	/* PRAGMA user_version: schema.c */
#define STORE_APP_ID		0x50695373	/* "PiSs": application_id */
#define STORE_BUSY_MS		30000	/* how long a writer waits */
#define STORE_ID_MAX		64	/* longest entry or session id */
#define STORE_WAL_CHECKPOINT	1000	/* log pages: checkpoint (SQLite's) */
#define STORE_WAL_KEEP		128	/* log pages a closing writer leaves */

/* An entry's place: its origin session's seq and its number there. */
struct store_pos {
	int64_t sess;
	int64_t n;	/* 0: no entry */
};

struct store_entry {
	struct store_pos pos;
	int64_t seq;		/* order of appending, database-wide */
	int64_t depth;		/* 1 for a root */
	int64_t ts;		/* when it was appended, Unix ms */
	const char *id;
	const char *parent_id;	/* NULL for a root */
	const char *type;	/* pi's entry type: message, compaction, ... */
	const char *role;	/* the message's role, or NULL */
	const char *message_id;
	const char *tool_call_id;
	const char *data;	/* JSON: the message, or the other fields */
	size_t data_len;
	const unsigned char *hash;	/* CHAIN_LEN bytes, or NULL: none */
	/*
	 * Why the store would refuse it now, for an entry stored before
	 * it checked (schema 1); NULL for every other.
	 */
	const char *invalid;
};

struct store_lock {
	long pid;		/* 0: not locked */
	long long start;	/* the holder's start time, /proc clock ticks */
	char host[256];
	int64_t at;
};

struct store_session {
	int64_t seq;
	char id[STORE_ID_MAX + 1];
	int64_t parent;		/* 0: none */
	char parent_id[STORE_ID_MAX + 1];
	struct store_pos bp;	/* branch point; n 0: none */
	char bp_id[STORE_ID_MAX + 1];
	int64_t count;		/* its own entries */
	int64_t depth;		/* of its head: the length of its path */
	struct store_pos head;
	char head_id[STORE_ID_MAX + 1];
	char *cwd;
	char *name;
	int64_t created, active;
	struct store_lock lock;
};

struct store {
	struct sqlite3 *db;
	char *path;
	struct sqlite3_stmt *stmt[24];	/* prepared once, by index */
	int wal_frames;			/* in the log after our last commit */
};

/*
 * What an append adds; nothing is kept.  A message's role and a tool
 * result's toolCallId are read from data, and so is the name a
 * session_info entry gives its session (an empty one clears it).
 */
struct store_new_entry {
	const char *id;		/* NULL: a new UUIDv7 */
	const char *type;	/* pi's entry type */
	const char *message_id;	/* the message_end's messageId, or NULL */
	struct json_object *data;	/* an object: the message, or fields */
	int64_t ts;		/* 0: now */
};

/*
 * Open the database at path, making it (and its directory) when create
 * is set, else failing with "no such database" (PI_EXIT_INPUT) when it
 * is not there.  Sets WAL, the busy timeout and foreign keys, and brings
 * an older schema up to date.
 */
int store_open(struct store *s, const char *path, int create,
    struct pi_error *e);
void store_close(struct store *s);
/* The default database path (a new string): see pi-sess(1) FILES. */
char *store_default_path(void);

/* A write transaction (BEGIN IMMEDIATE), waiting while busy. */
int store_begin(struct store *s, struct pi_error *e);
int store_commit(struct store *s, struct pi_error *e);
void store_rollback(struct store *s);

/*
 * Find a session or an entry by id or unique id prefix: 1 and *out
 * filled, or -1 with e saying "unknown" or listing the candidates.
 */
int store_session_find(struct store *s, const char *id,
    struct store_session *out, struct pi_error *e);
/* Is id some session's (some entry's when is_entry)?  1, 0, or -1. */
int store_id_taken(struct store *s, int is_entry, const char *id,
    struct pi_error *e);
int store_session_get(struct store *s, int64_t seq,
    struct store_session *out, struct pi_error *e);
void store_session_release(struct store_session *ss);
int store_entry_find(struct store *s, const char *id, struct store_pos *out,
    struct pi_error *e);
/* One entry to fn (as store_walk_back's fn). */
int store_entry_get(struct store *s, struct store_pos pos,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e);

/*
 * A new session: a root (bp.n 0) or a branch at bp, a child of parent
 * (0: none).  id NULL: a new UUIDv7.  out is filled.
 */
int store_session_new(struct store *s, const char *id, int64_t parent,
    struct store_pos bp, const char *cwd, const char *name, int64_t created,
    struct store_session *out, struct pi_error *e);
/*
 * Append one entry at ss's head (re-read inside the caller's
 * transaction, so ss may be stale), and the name it gives; ss (head,
 * count, depth, active, name) and *pos are updated.  An entry that
 * entry_check refuses is PI_EXIT_INPUT, "bad_input", its message
 * without a location: the caller adds where the entry came from.
 */
int store_append(struct store *s, struct store_session *ss,
    const struct store_new_entry *ne, struct store_pos *pos,
    struct pi_error *e);
/* When the session was last active (an import keeps the file's time). */
int store_set_active(struct store *s, struct store_session *ss, int64_t ms,
    struct pi_error *e);

/*
 * Walk from pos to the root, newest first, calling fn for each entry:
 * fn returns 0 to go on, 1 to stop, -1 to fail (with e filled).
 * Returns 1 when fn stopped it, else 0.
 */
int store_walk_back(struct store *s, struct store_pos pos,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e);
/* Is the entry at pos on the path that ends at head? */
int store_on_path(struct store *s, struct store_pos head,
    struct store_pos pos, struct pi_error *e);

/*
 * Sessions, newest activity first: all of them, or those of cwd.  fn
 * gets each (its strings borrowed); nonzero stops.
 */
int store_sessions(struct store *s, const char *cwd,
    int (*fn)(void *, const struct store_session *), void *arg,
    struct pi_error *e);
/* The direct children of a session, oldest first. */
int store_children(struct store *s, int64_t sess,
    int (*fn)(void *, const struct store_session *), void *arg,
    struct pi_error *e);
/*
 * Every entry that sessions in the subtree of sess (through branch
 * points only, when branches_only) appended, in the order they were
 * appended.
 */
int store_subtree_entries(struct store *s, int64_t sess, int branches_only,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e);

/* Remove a session (and its descendants, which must be listed). */
int store_session_rm(struct store *s, const int64_t *seqs, size_t n,
    struct pi_error *e);

/* The lock columns of one session: write them (pid 0 clears). */
int store_lock_set(struct store *s, int64_t sess, const struct store_lock *l,
    struct pi_error *e);

/*
 * The shortest prefix of id, at least min bytes, that no other session
 * (entries when is_entry) shares.
 */
size_t store_unique_len(struct store *s, int is_entry, const char *id,
    size_t min);

/*
 * PRAGMA integrity_check and foreign_key_check, our own checks of the
 * tree, every entry's hash against its content and its parent's hash,
 * and the entries the store would refuse now (check.c): each problem
 * to report, one line naming what is wrong; the count, or -1.
 */
int store_check(struct store *s, void (*report)(void *, const char *),
    void *arg, struct pi_error *e);

#endif
