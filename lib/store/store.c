/*
 * store: see store.h.  Statements are prepared once and kept by index;
 * each function resets what it used before returning, so a callback
 * may call into the store, but not into the walk that is calling it.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "chain.h"
#include "entry.h"
#include "schema.h"
#include "sql.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/place.h"
#include "core/util.h"
#include "core/banned.h"

enum {
	Q_SESSION_BY_SEQ,
	Q_SESSION_EXACT,
	Q_SESSION_PREFIX,
	Q_ENTRY_EXACT,
	Q_ENTRY_PREFIX,
	Q_ENTRY_AT,
	Q_HEAD,
	Q_NEXT_SEQ,
	Q_INSERT_ENTRY,
	Q_BUMP_SESSION,
	Q_INSERT_SESSION,
	Q_SEGMENT,
	Q_BRANCH_POINT,
	Q_SESSIONS_ALL,
	Q_SESSIONS_CWD,
	Q_CHILDREN,
	Q_SET_NAME,
	Q_SET_ACTIVE,
	Q_SET_LOCK,
	Q_RM_ENTRIES,
	Q_RM_SESSION,
	Q_MAX
};

_Static_assert(Q_MAX <= sizeof(((struct store *)0)->stmt) /
    sizeof(((struct store *)0)->stmt[0]), "struct store: too few stmt");

#define SESSION_COLS \
	"s.seq, s.id, s.parent, (SELECT id FROM sessions WHERE seq = s.parent)," \
	" s.bp_sess, s.bp_n," \
	" (SELECT id FROM entries WHERE sess = s.bp_sess AND n = s.bp_n)," \
	" s.count, s.depth, s.cwd, s.name, s.created_at, s.active_at," \
	" s.lock_pid, s.lock_start, s.lock_host, s.lock_at," \
	" CASE WHEN s.count > 0 THEN (SELECT id FROM entries" \
	" WHERE sess = s.seq AND n = s.count) ELSE (SELECT id FROM entries" \
	" WHERE sess = s.bp_sess AND n = s.bp_n) END"

static const char *const sql[Q_MAX] = {
	[Q_SESSION_BY_SEQ] = "SELECT " SESSION_COLS
	    " FROM sessions s WHERE s.seq = ?1",
	[Q_SESSION_EXACT] = "SELECT seq FROM sessions WHERE id = ?1",
	[Q_SESSION_PREFIX] = "SELECT seq, id FROM sessions"
	    " WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT 11",
	[Q_ENTRY_EXACT] = "SELECT sess, n FROM entries WHERE id = ?1",
	[Q_ENTRY_PREFIX] = "SELECT sess, n, id FROM entries"
	    " WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT 11",
	[Q_ENTRY_AT] = "SELECT " SQL_ENTRY_COLS
	    " FROM entries WHERE sess = ?1 AND n = ?2",
	[Q_NEXT_SEQ] = "SELECT coalesce(max(seq), 0) + 1 FROM entries",
	/* The head an append goes on, with the hash it is made on. */
	[Q_HEAD] = "SELECT s.count, s.depth, s.bp_sess, s.bp_n,"
	    " coalesce(h.id, b.id), coalesce(h.hash, b.hash) FROM sessions s"
	    " LEFT JOIN entries h ON h.sess = s.seq AND h.n = s.count"
	    " LEFT JOIN entries b ON b.sess = s.bp_sess AND b.n = s.bp_n"
	    " WHERE s.seq = ?1",
	[Q_INSERT_ENTRY] = "INSERT INTO entries (" SQL_ENTRY_COLS ")"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	    " NULL)",
	[Q_BUMP_SESSION] = "UPDATE sessions SET count = ?2, depth = ?3,"
	    " active_at = max(active_at, ?4) WHERE seq = ?1",
	[Q_INSERT_SESSION] = "INSERT INTO sessions (id, parent, bp_sess,"
	    " bp_n, count, depth, cwd, name, created_at, active_at)"
	    " VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7, ?8, ?8)",
	[Q_SEGMENT] = "SELECT " SQL_ENTRY_COLS " FROM entries"
	    " WHERE sess = ?1 AND n <= ?2 ORDER BY n DESC",
	[Q_BRANCH_POINT] = "SELECT bp_sess, bp_n FROM sessions WHERE seq = ?1",
	[Q_SESSIONS_ALL] = "SELECT " SESSION_COLS " FROM sessions s"
	    " ORDER BY s.active_at DESC, s.seq DESC",
	[Q_SESSIONS_CWD] = "SELECT " SESSION_COLS " FROM sessions s"
	    " WHERE s.cwd = ?1 ORDER BY s.active_at DESC, s.seq DESC",
	[Q_CHILDREN] = "SELECT " SESSION_COLS " FROM sessions s"
	    " WHERE s.parent = ?1 ORDER BY s.seq",
	[Q_SET_NAME] = "UPDATE sessions SET name = ?2 WHERE seq = ?1",
	[Q_SET_ACTIVE] = "UPDATE sessions SET active_at = ?2 WHERE seq = ?1",
	[Q_SET_LOCK] = "UPDATE sessions SET lock_pid = ?2, lock_start = ?3,"
	    " lock_host = ?4, lock_at = ?5 WHERE seq = ?1",
	[Q_RM_ENTRIES] = "DELETE FROM entries WHERE sess = ?1",
	[Q_RM_SESSION] = "DELETE FROM sessions WHERE seq = ?1",
};

static sqlite3_stmt *
stmt(struct store *s, int q, struct pi_error *e)
{
	sqlite3_stmt *st = s->stmt[q];

	if (st != NULL)
		return st;
	if (sqlite3_prepare_v3(s->db, sql[q], -1, SQLITE_PREPARE_PERSISTENT,
	    &st, NULL) != SQLITE_OK) {
		sql_err(s, e, "prepare");
		return NULL;
	}
	s->stmt[q] = st;
	return st;
}

static int
mkdirs(const char *path)
{
	char *d = xstrdup(path), *p;
	int rc = 0;

	if ((p = strrchr(d, '/')) == NULL || p == d) {
		free(d);
		return 0;
	}
	*p = '\0';
	for (p = d + 1; rc == 0 && *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(d, 0700) == -1 && errno != EEXIST)
			rc = -1;
		*p = '/';
	}
	if (rc == 0 && mkdir(d, 0700) == -1 && errno != EEXIST)
		rc = -1;
	free(d);
	return rc;
}

char *
store_default_path(void)
{
	return place_sessions_db();
}

/*
 * The log after each commit of ours: SQLite's own checkpoint as it
 * grows (this hook replaces it), and its size noted for store_close.
 */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct store *s = arg;

	s->wal_frames = frames;
	if (frames >= STORE_WAL_CHECKPOINT)
		(void)sqlite3_wal_checkpoint_v2(db, name,
		    SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

int
store_open(struct store *s, const char *path, int create, struct pi_error *e)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	struct stat st;
	int64_t mode;
	int fd;

	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	if (!create && stat(path, &st) == -1)
		return pi_err(e, PI_EXIT_INPUT, "no_database", "%s: no "
		    "sessions yet (%s)", path, strerror(errno));
	if (create) {
		flags |= SQLITE_OPEN_CREATE;
		if (mkdirs(path) == -1)
			return pi_err(e, PI_EXIT_FAIL, sql_errno_code(errno),
			    "%s: cannot make its directory: %s", path,
			    strerror(errno));
		/*
		 * SQLite would make the file 0644 less the umask, and its
		 * -wal and -shm files as the file is: sessions hold what
		 * the user and the tools said, so they are the user's
		 * alone.  A file that is there keeps its mode.
		 */
		if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600)) != -1)
			close(fd);
		else if (errno != EEXIST)
			return pi_err(e, PI_EXIT_FAIL, sql_errno_code(errno),
			    "%s: cannot make it: %s", path, strerror(errno));
	}
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		if (s->db == NULL)
			return pi_err(e, PI_EXIT_FAIL, "database",
			    "%s: cannot open: out of memory", path);
		return sql_err(s, e, "open");
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
	sqlite3_wal_hook(s->db, wal_hook, s);
	/*
	 * Most pi-sess runs write a line or two and exit: a checkpoint at
	 * every close would cost them four fsyncs.  Writers checkpoint as
	 * the log grows, and empty it when they leave it long (store_close);
	 * WAL keeps every commit safe meanwhile.
	 */
	(void)sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
	    NULL);
	if (sql_exec(s, "PRAGMA foreign_keys = ON", e) == -1 ||
	    sql_exec(s, "PRAGMA synchronous = NORMAL", e) == -1 ||
	    schema_setup(s, create, e) == -1)
		return -1;
	/*
	 * WAL: readers never wait for the writer, and a commit is one
	 * append to the log.  NORMAL: a commit survives the death of any
	 * process at any moment; only a power cut may lose the last ones.
	 */
	if (sql_int(s, "PRAGMA journal_mode = WAL", &mode, e) == -1)
		return -1;
	return 0;
}

void
store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < Q_MAX; i++)
		sqlite3_finalize(s->stmt[i]);
	/*
	 * A process that opens the database when no other has it open
	 * rebuilds the log's index by reading the whole log, and learns
	 * nothing of what was checkpointed, so the log is never started
	 * anew and would only grow, and every start with it.  A writer that
	 * leaves a long log empties it, unless others have the database
	 * open (they keep the index, and the log restarts as it should).
	 */
	if (s->db != NULL && s->wal_frames >= STORE_WAL_KEEP) {
		sqlite3_busy_timeout(s->db, 0);
		(void)sqlite3_wal_checkpoint_v2(s->db, NULL,
		    SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	if (s->db != NULL)
		sqlite3_close(s->db);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

int
store_begin(struct store *s, struct pi_error *e)
{
	return sql_exec(s, "BEGIN IMMEDIATE", e);
}

int
store_commit(struct store *s, struct pi_error *e)
{
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	sql_err(s, e, "commit");
	store_rollback(s);
	return -1;
}

void
store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		(void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}


static void
copy_id(char *dst, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n > STORE_ID_MAX)
		n = STORE_ID_MAX;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* A row of SESSION_COLS; the strings are copied when copy is set. */
static void
session_row(sqlite3_stmt *st, struct store_session *ss, int copy)
{
	const char *t;

	memset(ss, 0, sizeof(*ss));
	ss->seq = sqlite3_column_int64(st, 0);
	copy_id(ss->id, sql_text(st, 1));
	ss->parent = sqlite3_column_int64(st, 2);
	copy_id(ss->parent_id, sql_text(st, 3));
	ss->bp.sess = sqlite3_column_int64(st, 4);
	ss->bp.n = sqlite3_column_int64(st, 5);
	copy_id(ss->bp_id, sql_text(st, 6));
	ss->count = sqlite3_column_int64(st, 7);
	ss->depth = sqlite3_column_int64(st, 8);
	ss->cwd = (char *)sql_text(st, 9);
	ss->name = (char *)sql_text(st, 10);
	if (copy) {
		ss->cwd = xstrdup(ss->cwd ? ss->cwd : "");
		ss->name = ss->name ? xstrdup(ss->name) : NULL;
	}
	ss->created = sqlite3_column_int64(st, 11);
	ss->active = sqlite3_column_int64(st, 12);
	ss->lock.pid = (long)sqlite3_column_int64(st, 13);
	ss->lock.start = sqlite3_column_int64(st, 14);
	if ((t = sql_text(st, 15)) != NULL)
		(void)snprintf(ss->lock.host, sizeof(ss->lock.host), "%s", t);
	ss->lock.at = sqlite3_column_int64(st, 16);
	copy_id(ss->head_id, sql_text(st, 17));
	if (ss->count > 0) {
		ss->head.sess = ss->seq;
		ss->head.n = ss->count;
	} else
		ss->head = ss->bp;
}

void
store_session_release(struct store_session *ss)
{
	if (ss == NULL)
		return;
	free(ss->cwd);
	free(ss->name);
	ss->cwd = ss->name = NULL;
}

int
store_session_get(struct store *s, int64_t seq, struct store_session *out,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_SESSION_BY_SEQ, e);
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, seq);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		session_row(st, out, 1);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return pi_err(e, PI_EXIT_INPUT, "unknown_session",
		    "session #%lld is gone", (long long)seq);
	return sql_err(s, e, "read session");
}

/*
 * Resolve an id or prefix through an exact query (giving the key in
 * columns 0-1) and a prefix query (key, then id).  key gets one or two
 * integers.
 */
static int
find(struct store *s, int exact, int prefix, const char *what,
    const char *id, int64_t key[2], struct pi_error *e)
{
	sqlite3_stmt *st;
	struct buf list;
	char *hi;
	int rc, n = 0, cols = prefix == Q_ENTRY_PREFIX ? 2 : 1;

	if (*id == '\0')
		return pi_err(e, PI_EXIT_INPUT, "bad_id", "empty %s id",
		    what);
	if ((st = stmt(s, exact, e)) == NULL)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		key[0] = sqlite3_column_int64(st, 0);
		key[1] = cols == 2 ? sqlite3_column_int64(st, 1) : 0;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "find");
	if ((st = stmt(s, prefix, e)) == NULL)
		return -1;
	/* Ids are printable ASCII, so all that start with id sort below. */
	hi = xasprintf("%s\x7f", id);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	buf_init(&list, 4096);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n++ == 0) {
			key[0] = sqlite3_column_int64(st, 0);
			key[1] = cols == 2 ? sqlite3_column_int64(st, 1) : 0;
		}
		(void)buf_addf(&list, "%s%s", n > 1 ? ", " : "",
		    n > 10 ? "..." : sql_text(st, cols));
	}
	sqlite3_reset(st);
	free(hi);
	if (rc != SQLITE_DONE) {
		buf_release(&list);
		return sql_err(s, e, "find");
	}
	if (n == 1) {
		buf_release(&list);
		return 1;
	}
	if (n == 0)
		pi_err(e, PI_EXIT_INPUT, "unknown_id", "no %s '%s'", what, id);
	else
		pi_err(e, PI_EXIT_INPUT, "ambiguous_id", "%s id '%s' is "
		    "ambiguous: %s", what, id, list.data);
	buf_release(&list);
	return -1;
}

int
store_id_taken(struct store *s, int is_entry, const char *id,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, is_entry ? Q_ENTRY_EXACT : Q_SESSION_EXACT,
	    e);
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : sql_err(s, e, "find");
}

int
store_session_find(struct store *s, const char *id,
    struct store_session *out, struct pi_error *e)
{
	int64_t key[2];

	if (find(s, Q_SESSION_EXACT, Q_SESSION_PREFIX, "session", id, key,
	    e) == -1)
		return -1;
	return store_session_get(s, key[0], out, e);
}

int
store_entry_find(struct store *s, const char *id, struct store_pos *out,
    struct pi_error *e)
{
	int64_t key[2];

	if (find(s, Q_ENTRY_EXACT, Q_ENTRY_PREFIX, "entry", id, key, e) == -1)
		return -1;
	out->sess = key[0];
	out->n = key[1];
	return 1;
}


int
store_entry_get(struct store *s, struct store_pos pos,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_ENTRY_AT, e);
	struct store_entry en;
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, pos.sess);
	sqlite3_bind_int64(st, 2, pos.n);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sql_entry_row(st, &en);
		rc = fn(arg, &en, e);
		sqlite3_reset(st);
		return rc == -1 ? -1 : 1;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return pi_err(e, PI_EXIT_INPUT, "unknown_id", "no entry "
		    "#%lld.%lld", (long long)pos.sess, (long long)pos.n);
	return sql_err(s, e, "read entry");
}

int
store_session_new(struct store *s, const char *id, int64_t parent,
    struct store_pos bp, const char *cwd, const char *name, int64_t created,
    struct store_session *out, struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_INSERT_SESSION, e);
	char fresh[37];
	int64_t depth = 0;
	int rc;

	if (st == NULL)
		return -1;
	if (bp.n > 0) {
		sqlite3_stmt *q = stmt(s, Q_ENTRY_AT, e);

		if (q == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, bp.sess);
		sqlite3_bind_int64(q, 2, bp.n);
		rc = sqlite3_step(q);
		depth = sqlite3_column_int64(q, 3);
		sqlite3_reset(q);
		if (rc != SQLITE_ROW)
			return rc == SQLITE_DONE ? pi_err(e, PI_EXIT_INPUT,
			    "unknown_id", "no such branch point") :
			    sql_err(s, e, "read entry");
	}
	if (id == NULL) {
		pi_uuid7(fresh);
		id = fresh;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (parent > 0)
		sqlite3_bind_int64(st, 2, parent);
	else
		sqlite3_bind_null(st, 2);
	if (bp.n > 0) {
		sqlite3_bind_int64(st, 3, bp.sess);
		sqlite3_bind_int64(st, 4, bp.n);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	sqlite3_bind_int64(st, 5, depth);
	sqlite3_bind_text(st, 6, cwd, -1, SQLITE_STATIC);
	if (name != NULL)
		sqlite3_bind_text(st, 7, name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, created > 0 ? created : pi_now_ms());
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "new session");
	return store_session_get(s, sqlite3_last_insert_rowid(s->db), out, e);
}

static void
bind_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (v != NULL)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* The session's name, in the row and in ss. */
static int
set_name(struct store *s, struct store_session *ss, const char *name,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_SET_NAME, e);
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, ss->seq);
	bind_opt(st, 2, name);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "name");
	free(ss->name);
	ss->name = name ? xstrdup(name) : NULL;
	return 0;
}

/*
 * Where session seq's next entry goes, as it is now (another process
 * may have appended since it was read): its number, depth, parent (id
 * and position; none when n is 0) and the parent's hash (NULL: none).
 */
struct head {
	int64_t count, depth;
	struct store_pos pos;
	char id[STORE_ID_MAX + 1];
	unsigned char hash[CHAIN_LEN];
	int has_hash;
};

static int
head_now(struct store *s, int64_t seq, struct head *h, struct pi_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = stmt(s, Q_HEAD, e)) == NULL)
		return -1;
	memset(h, 0, sizeof(*h));
	sqlite3_bind_int64(st, 1, seq);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		h->count = sqlite3_column_int64(st, 0);
		h->depth = sqlite3_column_int64(st, 1);
		if (h->count > 0) {
			h->pos.sess = seq;
			h->pos.n = h->count;
		} else {
			h->pos.sess = sqlite3_column_int64(st, 2);
			h->pos.n = sqlite3_column_int64(st, 3);
		}
		copy_id(h->id, sql_text(st, 4));
		if (sqlite3_column_bytes(st, 5) == CHAIN_LEN) {
			memcpy(h->hash, sqlite3_column_blob(st, 5), CHAIN_LEN);
			h->has_hash = 1;
		}
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return pi_err(e, PI_EXIT_INPUT, "unknown_session",
		    "session #%lld is gone", (long long)seq);
	return sql_err(s, e, "append");
}

int
store_append(struct store *s, struct store_session *ss,
    const struct store_new_entry *ne, struct store_pos *pos,
    struct pi_error *e)
{
	sqlite3_stmt *st;
	struct head h;
	struct store_entry en;
	unsigned char hash[CHAIN_LEN];
	const char *name = NULL;
	char fresh[37];
	int64_t seq;
	int rc, names = 0;

	/* One check for every way in, before anything is written. */
	memset(&en, 0, sizeof(en));
	en.data = jsonx_string(ne->data, &en.data_len);
	if (entry_check(ne->type, ne->data, en.data_len, e) == -1)
		return -1;
	en.type = ne->type;
	en.message_id = ne->message_id;
	if (strcmp(ne->type, "message") == 0) {
		en.role = jsonx_str(ne->data, "role");
		if (strcmp(en.role, "toolResult") == 0)
			en.tool_call_id = jsonx_str(ne->data, "toolCallId");
	} else if (strcmp(ne->type, "session_info") == 0 &&
	    jsonx_get(ne->data, "name") != NULL) {
		names = 1;
		name = jsonx_str(ne->data, "name");
		if (name != NULL && *name == '\0')
			name = NULL;
	}
	if (ne->id == NULL)
		pi_uuid7(fresh);
	en.id = ne->id ? ne->id : fresh;
	en.ts = ne->ts > 0 ? ne->ts : pi_now_ms();
	if (head_now(s, ss->seq, &h, e) == -1)
		return -1;
	en.parent_id = h.pos.n > 0 ? h.id : NULL;
	chain_hash(h.has_hash ? h.hash : NULL, &en, hash);
	if ((st = stmt(s, Q_NEXT_SEQ, e)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	seq = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return sql_err(s, e, "append");
	if ((st = stmt(s, Q_INSERT_ENTRY, e)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, ss->seq);
	sqlite3_bind_int64(st, 2, h.count + 1);
	sqlite3_bind_int64(st, 3, seq);
	sqlite3_bind_int64(st, 4, h.depth + 1);
	sqlite3_bind_int64(st, 5, en.ts);
	sqlite3_bind_text(st, 6, en.id, -1, SQLITE_STATIC);
	bind_opt(st, 7, en.parent_id);
	sqlite3_bind_text(st, 8, en.type, -1, SQLITE_STATIC);
	bind_opt(st, 9, en.role);
	bind_opt(st, 10, en.message_id);
	bind_opt(st, 11, en.tool_call_id);
	sqlite3_bind_text(st, 12, en.data, (int)en.data_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 13, hash, CHAIN_LEN, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "append");
	if ((st = stmt(s, Q_BUMP_SESSION, e)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, ss->seq);
	sqlite3_bind_int64(st, 2, h.count + 1);
	sqlite3_bind_int64(st, 3, h.depth + 1);
	sqlite3_bind_int64(st, 4, ss->active = pi_now_ms());
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "append");
	if (names && set_name(s, ss, name, e) == -1)
		return -1;
	pos->sess = ss->seq;
	pos->n = h.count + 1;
	ss->count = h.count + 1;
	ss->depth = h.depth + 1;
	ss->head = *pos;
	copy_id(ss->head_id, en.id);
	return 0;
}

int
store_set_active(struct store *s, struct store_session *ss, int64_t ms,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_SET_ACTIVE, e);
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, ss->seq);
	sqlite3_bind_int64(st, 2, ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "set active");
	ss->active = ms;
	return 0;
}

/* The branch point of session sess (n 0 for a root). */
static int
branch_point(struct store *s, int64_t sess, struct store_pos *bp,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_BRANCH_POINT, e);
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sess);
	rc = sqlite3_step(st);
	bp->sess = sqlite3_column_int64(st, 0);
	bp->n = sqlite3_column_int64(st, 1);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? pi_err(e, PI_EXIT_FAIL, "database",
	    "%s: session #%lld is gone", s->path, (long long)sess) :
	    sql_err(s, e, "walk");
}

int
store_walk_back(struct store *s, struct store_pos pos,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_SEGMENT, e);
	struct store_entry en;
	int rc, r;

	if (st == NULL)
		return -1;
	while (pos.n > 0) {
		sqlite3_bind_int64(st, 1, pos.sess);
		sqlite3_bind_int64(st, 2, pos.n);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			sql_entry_row(st, &en);
			if ((r = fn(arg, &en, e)) != 0) {
				sqlite3_reset(st);
				return r;
			}
		}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return sql_err(s, e, "walk");
		if (branch_point(s, pos.sess, &pos, e) == -1)
			return -1;
	}
	return 0;
}

int
store_on_path(struct store *s, struct store_pos head, struct store_pos pos,
    struct pi_error *e)
{
	/*
	 * A path leaves a session for the branch point of it, which is
	 * older than the session, so it never comes back to one.
	 */
	while (head.n > 0) {
		if (head.sess == pos.sess)
			return pos.n <= head.n;
		if (branch_point(s, head.sess, &head, e) == -1)
			return -1;
	}
	return 0;
}

static int
each_session(struct store *s, sqlite3_stmt *st,
    int (*fn)(void *, const struct store_session *), void *arg,
    struct pi_error *e)
{
	struct store_session ss;
	int rc, stop = 0;

	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		session_row(st, &ss, 0);
		stop = fn(arg, &ss);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!stop && rc != SQLITE_DONE)
		return sql_err(s, e, "list sessions");
	return 0;
}

int
store_sessions(struct store *s, const char *cwd,
    int (*fn)(void *, const struct store_session *), void *arg,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, cwd ? Q_SESSIONS_CWD : Q_SESSIONS_ALL, e);

	if (st == NULL)
		return -1;
	if (cwd != NULL)
		sqlite3_bind_text(st, 1, cwd, -1, SQLITE_STATIC);
	return each_session(s, st, fn, arg, e);
}

int
store_children(struct store *s, int64_t sess,
    int (*fn)(void *, const struct store_session *), void *arg,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_CHILDREN, e);

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sess);
	return each_session(s, st, fn, arg, e);
}

int
store_subtree_entries(struct store *s, int64_t sess, int branches_only,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e)
{
	static const char q[] =
	    "WITH RECURSIVE sub(seq) AS (SELECT ?1 UNION ALL"
	    " SELECT s.seq FROM sessions s JOIN sub ON s.parent = sub.seq"
	    " WHERE ?2 = 0 OR s.bp_sess IS NOT NULL)"
	    " SELECT " SQL_ENTRY_COLS " FROM entries"
	    " WHERE sess IN (SELECT seq FROM sub) ORDER BY seq";
	sqlite3_stmt *st;
	struct store_entry en;
	int rc, r = 0;

	if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK)
		return sql_err(s, e, "subtree");
	sqlite3_bind_int64(st, 1, sess);
	sqlite3_bind_int(st, 2, branches_only);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sql_entry_row(st, &en);
		if ((r = fn(arg, &en, e)) != 0)
			break;
	}
	sqlite3_finalize(st);
	if (r == -1)
		return -1;
	if (r == 0 && rc != SQLITE_DONE)
		return sql_err(s, e, "subtree");
	return r;
}

int
store_session_rm(struct store *s, const int64_t *seqs, size_t n,
    struct pi_error *e)
{
	sqlite3_stmt *st;
	size_t i;
	int q, rc;

	for (i = 0; i < n; i++)
		for (q = Q_RM_ENTRIES; q <= Q_RM_SESSION; q++) {
			if ((st = stmt(s, q, e)) == NULL)
				return -1;
			sqlite3_bind_int64(st, 1, seqs[i]);
			rc = sqlite3_step(st);
			sqlite3_reset(st);
			if (rc != SQLITE_DONE)
				return sql_err(s, e, "remove");
		}
	return 0;
}

int
store_lock_set(struct store *s, int64_t sess, const struct store_lock *l,
    struct pi_error *e)
{
	sqlite3_stmt *st = stmt(s, Q_SET_LOCK, e);
	int rc;

	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, sess);
	if (l->pid > 0) {
		sqlite3_bind_int64(st, 2, l->pid);
		sqlite3_bind_int64(st, 3, l->start);
		sqlite3_bind_text(st, 4, l->host, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, l->at);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_err(s, e, "lock");
}

static size_t
common(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] != '\0' && a[i] == b[i])
		i++;
	return i;
}

size_t
store_unique_len(struct store *s, int is_entry, const char *id, size_t min)
{
	static const char *const q[2][2] = {
		{ "SELECT max(id) FROM sessions WHERE id < ?1",
		  "SELECT min(id) FROM sessions WHERE id > ?1" },
		{ "SELECT max(id) FROM entries WHERE id < ?1",
		  "SELECT min(id) FROM entries WHERE id > ?1" },
	};
	sqlite3_stmt *st;
	const char *t;
	size_t n = 0, c, len = strlen(id);
	int i;

	for (i = 0; i < 2; i++) {
		if (sqlite3_prepare_v2(s->db, q[is_entry != 0][i], -1, &st,
		    NULL) != SQLITE_OK)
			return len;
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    (t = sql_text(st, 0)) != NULL && (c = common(id, t)) > n)
			n = c;
		sqlite3_finalize(st);
	}
	n++;
	if (n < min)
		n = min;
	return n < len ? n : len;
}
