/*
 * sql: what the store's files share about SQLite.  Not for programs:
 * pi-sess calls store_* only.
 *
 * sql_err turns the connection's last error into a struct pi_error
 * with the real cause: busy or locked (PI_EXIT_TEMP, "busy"), not a
 * database (PI_EXIT_CONFIG), a full disk ("disk_full"), a read-only
 * file system or a file we may not write ("read_only",
 * "permission_denied"), a file that cannot be opened ("cannot_open"),
 * an I/O error ("io") or a damaged file ("corrupt"), naming the
 * system's errno where SQLite kept one; anything else is "database".
 * All but busy are PI_EXIT_FAIL.  It returns -1.
 */
#ifndef PI_SQL_H
#define PI_SQL_H

#include <stdint.h>

struct pi_error;
struct store;
struct store_entry;
struct sqlite3_stmt;

/* The columns of an entry, in the order sql_entry_row reads them. */
#define SQL_ENTRY_COLS \
	"sess, n, seq, depth, ts, id, parent_id, type, role, message_id," \
	" tool_call_id, data, hash, invalid"

int sql_err(struct store *s, struct pi_error *e, const char *what);
/* The code of those above for a system errno, "database" for others. */
const char *sql_errno_code(int err);
/* Run SQL that returns no rows we want. */
int sql_exec(struct store *s, const char *q, struct pi_error *e);
/* One integer from a pragma or a query (0 when it gives no row). */
int sql_int(struct store *s, const char *q, int64_t *out,
    struct pi_error *e);
/* Column i of the row as text, or NULL. */
const char *sql_text(struct sqlite3_stmt *st, int i);
/* An entry from SQL_ENTRY_COLS (its strings are the statement's). */
void sql_entry_row(struct sqlite3_stmt *st, struct store_entry *en);

#endif
