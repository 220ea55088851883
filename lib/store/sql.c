/* sql: see sql.h. */
#include "sql.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "chain.h"
#include "store.h"
#include "core/util.h"
#include "core/banned.h"

/*
 * Why a file cannot be written: its own mode or mount, or its
 * directory's (where the -wal and -shm files go).  0 when both look
 * writable.
 */
static int
write_errno(const char *path)
{
	char *dir, *slash;
	int rc = 0;

	if (access(path, W_OK) == -1 && errno != ENOENT)
		return errno;
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL)
		(void)snprintf(dir, strlen(dir) + 1, ".");
	else
		slash[slash == dir] = '\0';
	if (access(dir, W_OK) == -1)
		rc = errno;
	free(dir);
	return rc;
}

const char *
sql_errno_code(int err)
{
	if (err == EACCES || err == EPERM)
		return "permission_denied";
	if (err == EROFS)
		return "read_only";
	if (err == ENOSPC || err == EDQUOT)
		return "disk_full";
	return "database";
}

int
sql_err(struct store *s, struct pi_error *e, const char *what)
{
	int rc = sqlite3_extended_errcode(s->db), sys = 0;
	const char *code = "database", *why = sqlite3_errmsg(s->db);
	char errbuf[160];

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return pi_err(e, PI_EXIT_TEMP, "busy", "%s: %s: database is "
		    "busy (still, after %d s)", s->path, what,
		    STORE_BUSY_MS / 1000);
	case SQLITE_NOTADB:
		return pi_err(e, PI_EXIT_CONFIG, "not_a_database",
		    "%s: not an SQLite database", s->path);
	case SQLITE_FULL:
		code = "disk_full";
		sys = ENOSPC;
		break;
	case SQLITE_READONLY:
		/*
		 * SQLite says "attempt to write a readonly database" for a
		 * read-only mount and for a mode that says no alike, and
		 * keeps no errno: ask the file system which it is.
		 */
		if ((sys = write_errno(s->path)) == 0 ||
		    strcmp(code = sql_errno_code(sys), "database") == 0)
			code = "read_only";
		break;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		/* The errno of the system call that failed, SQLite's own. */
		sys = sqlite3_system_errno(s->db);
		if (strcmp(code = sql_errno_code(sys), "database") == 0)
			code = (rc & 0xff) == SQLITE_IOERR ? "io" :
			    "cannot_open";
		break;
	case SQLITE_CORRUPT:
		code = "corrupt";
		break;
	}
	if (sys != 0) {
		(void)snprintf(errbuf, sizeof(errbuf), "%s (%s)", why,
		    strerror(sys));
		why = errbuf;
	}
	return pi_err(e, PI_EXIT_FAIL, code, "%s: %s: %s", s->path, what,
	    why);
}

int
sql_exec(struct store *s, const char *q, struct pi_error *e)
{
	if (sqlite3_exec(s->db, q, NULL, NULL, NULL) != SQLITE_OK)
		return sql_err(s, e, q);
	return 0;
}

int
sql_int(struct store *s, const char *q, int64_t *out, struct pi_error *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK)
		return sql_err(s, e, q);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_err(s, e, q);
	return 0;
}

const char *
sql_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

void
sql_entry_row(sqlite3_stmt *st, struct store_entry *en)
{
	en->pos.sess = sqlite3_column_int64(st, 0);
	en->pos.n = sqlite3_column_int64(st, 1);
	en->seq = sqlite3_column_int64(st, 2);
	en->depth = sqlite3_column_int64(st, 3);
	en->ts = sqlite3_column_int64(st, 4);
	en->id = sql_text(st, 5);
	en->parent_id = sql_text(st, 6);
	en->type = sql_text(st, 7);
	en->role = sql_text(st, 8);
	en->message_id = sql_text(st, 9);
	en->tool_call_id = sql_text(st, 10);
	en->data = sql_text(st, 11);
	en->data_len = (size_t)sqlite3_column_bytes(st, 11);
	en->hash = sqlite3_column_blob(st, 12);
	if (sqlite3_column_bytes(st, 12) != CHAIN_LEN)
		en->hash = NULL;
	en->invalid = sql_text(st, 13);
}
