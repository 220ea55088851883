/* schema: see schema.h. */
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "chain.h"
#include "entry.h"
#include "sql.h"
#include "store.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

static int seal_old(struct store *s, struct pi_error *e);

/*
 * Version 1: the tree.  Foreign keys are deferred because sessions and
 * entries point at each other: a subtree is removed in one transaction,
 * checked as a whole at its commit.
 */
#define SCHEMA_1 \
	"CREATE TABLE sessions (" \
	"  seq INTEGER PRIMARY KEY," \
	"  id TEXT NOT NULL UNIQUE," \
	"  parent INTEGER REFERENCES sessions(seq)" \
	"    DEFERRABLE INITIALLY DEFERRED," \
	"  bp_sess INTEGER," \
	"  bp_n INTEGER," \
	"  count INTEGER NOT NULL DEFAULT 0," \
	"  depth INTEGER NOT NULL DEFAULT 0," \
	"  cwd TEXT NOT NULL," \
	"  name TEXT," \
	"  created_at INTEGER NOT NULL," \
	"  active_at INTEGER NOT NULL," \
	"  lock_pid INTEGER," \
	"  lock_start INTEGER," \
	"  lock_host TEXT," \
	"  lock_at INTEGER," \
	"  FOREIGN KEY (bp_sess, bp_n) REFERENCES entries(sess, n)" \
	"    DEFERRABLE INITIALLY DEFERRED" \
	");" \
	"CREATE INDEX sessions_parent ON sessions(parent);" \
	"CREATE INDEX sessions_cwd ON sessions(cwd, active_at);" \
	"CREATE INDEX sessions_active ON sessions(active_at);" \
	"CREATE TABLE entries (" \
	"  sess INTEGER NOT NULL REFERENCES sessions(seq)" \
	"    DEFERRABLE INITIALLY DEFERRED," \
	"  n INTEGER NOT NULL," \
	"  seq INTEGER NOT NULL UNIQUE," \
	"  depth INTEGER NOT NULL," \
	"  ts INTEGER NOT NULL," \
	"  id TEXT NOT NULL UNIQUE," \
	"  parent_id TEXT," \
	"  type TEXT NOT NULL," \
	"  role TEXT," \
	"  message_id TEXT," \
	"  tool_call_id TEXT," \
	"  data TEXT NOT NULL," \
	"  PRIMARY KEY (sess, n)" \
	") WITHOUT ROWID;"

/*
 * Version 2: every entry sealed to its parent by a hash (chain.h), and
 * an entry stored before the store checked what it takes marked with
 * why it would be refused now (entry.h), so that readers pass over it
 * without checking every entry again.
 */
#define SCHEMA_2 \
	"ALTER TABLE entries ADD COLUMN hash BLOB;" \
	"ALTER TABLE entries ADD COLUMN invalid TEXT;"

static const struct step {
	const char *sql;
	int (*fill)(struct store *, struct pi_error *);	/* or NULL */
} steps[STORE_SCHEMA] = {
	{ SCHEMA_1, NULL },
	{ SCHEMA_2, seal_old },
};

/* A session as the sealing of old entries needs it. */
struct old_session {
	int64_t seq;
	struct store_pos bp;
	int done;
};

static int
by_seq(const void *a, const void *b)
{
	const struct old_session *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One sealed entry, waiting to be written. */
struct seal {
	int64_t n;
	unsigned char hash[CHAIN_LEN];
	char *invalid;
};

/* Why data would be refused now, or NULL. */
static char *
why_invalid(const struct store_entry *en)
{
	struct json_object *o = NULL;
	struct pi_error le;
	char *why = NULL;

	/* Too large is enough to know: no need to parse it. */
	if (en->data_len <= PI_MAX_ENTRY)
		o = jsonx_parse(en->data, en->data_len, NULL);

	if (entry_check(en->type, o, en->data_len, &le) == -1)
		why = xstrdup(le.msg);
	json_object_put(o);
	return why;
}

/* Seal the entries of one session, made on parent (NULL: a root). */
static int
seal_session(struct store *s, int64_t sess, const unsigned char *parent,
    struct pi_error *e)
{
	static const char qsel[] = "SELECT " SQL_ENTRY_COLS
	    " FROM entries WHERE sess = ?1 ORDER BY n";
	static const char qset[] = "UPDATE entries SET hash = ?3,"
	    " invalid = ?4 WHERE sess = ?1 AND n = ?2";
	struct seal *v = NULL;
	struct store_entry en;
	sqlite3_stmt *st;
	size_t n = 0, cap = 0, i;
	int rc;

	if (sqlite3_prepare_v2(s->db, qsel, -1, &st, NULL) != SQLITE_OK)
		return sql_err(s, e, "seal");
	sqlite3_bind_int64(st, 1, sess);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		sql_entry_row(st, &en);
		v[n].n = en.pos.n;
		v[n].invalid = why_invalid(&en);
		chain_hash(n ? v[n - 1].hash : parent, &en, v[n].hash);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sql_err(s, e, "seal");
		goto fail;
	}
	/* Written once the reading is over: no row changes under a scan. */
	if (sqlite3_prepare_v2(s->db, qset, -1, &st, NULL) != SQLITE_OK) {
		sql_err(s, e, "seal");
		goto fail;
	}
	for (i = 0, rc = SQLITE_DONE; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_bind_int64(st, 1, sess);
		sqlite3_bind_int64(st, 2, v[i].n);
		sqlite3_bind_blob(st, 3, v[i].hash, CHAIN_LEN, SQLITE_STATIC);
		if (v[i].invalid != NULL)
			sqlite3_bind_text(st, 4, v[i].invalid, -1,
			    SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 4);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sql_err(s, e, "seal");
		goto fail;
	}
	for (i = 0; i < n; i++)
		free(v[i].invalid);
	free(v);
	return 0;
fail:
	for (i = 0; i < n; i++)
		free(v[i].invalid);
	free(v);
	return -1;
}

/* The stored hash of the entry at pos into out; 0 when it has none. */
static int
stored_hash(struct store *s, struct store_pos pos,
    unsigned char out[CHAIN_LEN], struct pi_error *e)
{
	static const char q[] = "SELECT hash FROM entries"
	    " WHERE sess = ?1 AND n = ?2";
	sqlite3_stmt *st;
	int rc, found = 0;

	if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK)
		return sql_err(s, e, "seal");
	sqlite3_bind_int64(st, 1, pos.sess);
	sqlite3_bind_int64(st, 2, pos.n);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    sqlite3_column_bytes(st, 0) == CHAIN_LEN) {
		memcpy(out, sqlite3_column_blob(st, 0), CHAIN_LEN);
		found = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_err(s, e, "seal");
	return found;
}

/*
 * Seal every entry already stored, a session at a time, each after the
 * session its branch point is in: that one is older, so one pass in
 * the order of sessions does it, but a later pass catches any other
 * order.  A branch point that is gone counts as no parent, as it does
 * for store_check.
 */
static int
seal_old(struct store *s, struct pi_error *e)
{
	static const char q[] = "SELECT seq, coalesce(bp_sess, 0),"
	    " coalesce(bp_n, 0) FROM sessions ORDER BY seq";
	struct old_session *v = NULL, key, *bp;
	unsigned char h[CHAIN_LEN];
	sqlite3_stmt *st;
	size_t n = 0, cap = 0, i, left, before;
	int rc, found;

	if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK)
		return sql_err(s, e, "seal");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n].seq = sqlite3_column_int64(st, 0);
		v[n].bp.sess = sqlite3_column_int64(st, 1);
		v[n].bp.n = sqlite3_column_int64(st, 2);
		v[n++].done = 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return sql_err(s, e, "seal");
	}
	for (left = n; left > 0;) {
		before = left;
		for (i = 0; i < n; i++) {
			if (v[i].done)
				continue;
			key.seq = v[i].bp.sess;
			bp = v[i].bp.n > 0 ? bsearch(&key, v, n, sizeof(*v),
			    by_seq) : NULL;
			/* The session of its branch point first. */
			if (bp != NULL && !bp->done && bp != &v[i])
				continue;
			found = 0;
			if (bp != NULL && (found = stored_hash(s, v[i].bp, h,
			    e)) == -1)
				goto fail;
			if (seal_session(s, v[i].seq, found ? h : NULL,
			    e) == -1)
				goto fail;
			v[i].done = 1;
			left--;
		}
		/* A cycle of branch points: seal the rest as they are. */
		for (i = 0; left == before && i < n; i++)
			if (!v[i].done) {
				if (seal_session(s, v[i].seq, NULL, e) == -1)
					goto fail;
				v[i].done = 1;
				left--;
			}
	}
	free(v);
	return 0;
fail:
	free(v);
	return -1;
}

int
schema_setup(struct store *s, int create, struct pi_error *e)
{
	int64_t app, ver, tables;
	char q[64];
	int i;

	if (sql_int(s, "PRAGMA application_id", &app, e) == -1 ||
	    sql_int(s, "PRAGMA user_version", &ver, e) == -1)
		return -1;
	if (app == STORE_APP_ID && ver == STORE_SCHEMA)
		return 0;
	/*
	 * A new, empty file: WAL before the schema, so that making it costs
	 * one log of commits rather than a rollback journal's fsyncs.  A
	 * file with anything in it is left as it is until it is known ours.
	 */
	if (create && app == 0 && ver == 0 &&
	    sql_int(s, "SELECT count(*) FROM sqlite_master", &tables,
	    e) == 0 && tables == 0) {
		/*
		 * Nothing to lose yet, so no fsync until the schema is in:
		 * a process that dies meanwhile leaves the file whole all
		 * the same; only a power cut could spoil it.
		 */
		if (sql_exec(s, "PRAGMA synchronous = OFF", e) == -1 ||
		    sql_int(s, "PRAGMA journal_mode = WAL", &tables, e) == -1)
			return -1;
	}
	if (store_begin(s, e) == -1)
		return -1;
	/* Again, now that no other process can be making it. */
	if (sql_int(s, "PRAGMA application_id", &app, e) == -1 ||
	    sql_int(s, "PRAGMA user_version", &ver, e) == -1 ||
	    sql_int(s, "SELECT count(*) FROM sqlite_master", &tables,
	    e) == -1)
		goto fail;
	if (app == 0 && ver == 0 && tables == 0) {
		if (!create) {
			pi_err(e, PI_EXIT_INPUT, "no_database", "%s: no "
			    "sessions yet (the database is empty)", s->path);
			goto fail;
		}
		(void)snprintf(q, sizeof(q), "PRAGMA application_id = %d",
		    STORE_APP_ID);
		if (sql_exec(s, q, e) == -1)
			goto fail;
	} else if (app != STORE_APP_ID) {
		pi_err(e, PI_EXIT_CONFIG, "not_ours", "%s: not a pi session "
		    "database (application_id %#llx, user_version %lld)",
		    s->path, (unsigned long long)app, (long long)ver);
		goto fail;
	} else if (ver > STORE_SCHEMA) {
		pi_err(e, PI_EXIT_CONFIG, "too_new", "%s: made by a newer "
		    "pi-sess (schema %lld; this one knows up to %d)", s->path,
		    (long long)ver, STORE_SCHEMA);
		goto fail;
	}
	for (i = (int)ver; i < STORE_SCHEMA; i++)
		if (sql_exec(s, steps[i].sql, e) == -1 ||
		    (steps[i].fill != NULL && steps[i].fill(s, e) == -1))
			goto fail;
	if (ver != STORE_SCHEMA) {
		(void)snprintf(q, sizeof(q), "PRAGMA user_version = %d",
		    STORE_SCHEMA);
		if (sql_exec(s, q, e) == -1)
			goto fail;
	}
	if (store_commit(s, e) == -1)
		return -1;
	return sql_exec(s, "PRAGMA synchronous = NORMAL", e);
fail:
	store_rollback(s);
	return -1;
}
