/*
 * check: store_check (store.h), pi-sess check's work, as git fsck does
 * it: SQLite's own checks, then the tree's, then every entry's hash
 * made again from its content and its parent's stored hash (chain.h),
 * so that an entry changed behind the store's back, or a history
 * rewritten before it, is named.
 */
#include "store.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "chain.h"
#include "sql.h"
#include "core/util.h"
#include "core/banned.h"

static const char *const checks[] = {
	"PRAGMA integrity_check",
	"SELECT 'foreign key: ' || \"table\" || ' row ' ||"
	" coalesce(rowid, '?') || ' -> ' || parent"
	" FROM pragma_foreign_key_check",
	"SELECT 'session ' || s.id || ': count ' || s.count ||"
	" ' but entries 1..' || coalesce(max(e.n), 0) || ' (' ||"
	" count(e.n) || ')' FROM sessions s LEFT JOIN entries e"
	" ON e.sess = s.seq GROUP BY s.seq HAVING s.count !="
	" coalesce(max(e.n), 0) OR s.count != count(e.n)",
	"SELECT 'entry ' || e.id || ': parent or depth does not"
	" follow its chain' FROM entries e JOIN entries p"
	" ON p.sess = e.sess AND p.n = e.n - 1"
	" WHERE p.id IS NOT e.parent_id OR p.depth + 1 != e.depth",
	"SELECT 'entry ' || e.id || ': parent or depth does not"
	" follow its branch point' FROM entries e JOIN sessions s"
	" ON s.seq = e.sess LEFT JOIN entries p ON p.sess = s.bp_sess"
	" AND p.n = s.bp_n WHERE e.n = 1 AND (p.id IS NOT e.parent_id"
	" OR coalesce(p.depth, 0) + 1 != e.depth)",
	"SELECT 'session ' || s.id || ': depth ' || s.depth ||"
	" ' is not its head''s' FROM sessions s WHERE s.depth !="
	" coalesce((SELECT depth FROM entries WHERE sess = s.seq"
	" AND n = s.count), (SELECT depth FROM entries WHERE"
	" sess = s.bp_sess AND n = s.bp_n), 0)",
	"SELECT 'entry ' || id || ': data is not JSON' FROM entries"
	" WHERE json_valid(data) = 0",
	"SELECT 'entry ' || id || ': refused by this pi-sess (stored by"
	" an older one): ' || invalid FROM entries WHERE invalid IS NOT NULL",
};

/* Every entry, with its parent's stored hash (NULL: none). */
static const char seals[] = "SELECT " SQL_ENTRY_COLS ","
    " CASE WHEN e.n > 1 THEN (SELECT p.hash FROM entries p"
    " WHERE p.sess = e.sess AND p.n = e.n - 1)"
    " ELSE (SELECT p.hash FROM sessions s JOIN entries p"
    " ON p.sess = s.bp_sess AND p.n = s.bp_n WHERE s.seq = e.sess) END"
    " FROM entries e ORDER BY e.sess, e.n";

static int
check_seals(struct store *s, void (*report)(void *, const char *),
    void *arg, struct pi_error *e)
{
	struct store_entry en;
	sqlite3_stmt *st;
	const unsigned char *parent;
	unsigned char h[CHAIN_LEN];
	char msg[512], want[2 * CHAIN_LEN + 1], got[2 * CHAIN_LEN + 1];
	int rc, bad = 0;

	if (sqlite3_prepare_v2(s->db, seals, -1, &st, NULL) != SQLITE_OK)
		return sql_err(s, e, "check");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sql_entry_row(st, &en);
		parent = sqlite3_column_blob(st, 14);
		if (sqlite3_column_bytes(st, 14) != CHAIN_LEN)
			parent = NULL;
		if (en.hash == NULL) {
			(void)snprintf(msg, sizeof(msg), "entry %s: no hash",
			    en.id);
			report(arg, msg);
			bad++;
			continue;
		}
		chain_hash(parent, &en, h);
		if (memcmp(h, en.hash, CHAIN_LEN) == 0)
			continue;
		chain_hex(en.hash, want);
		chain_hex(h, got);
		(void)snprintf(msg, sizeof(msg), "entry %s: hash mismatch: "
		    "the entry, or the history before it, changed after it "
		    "was stored (stored %.12s, now %.12s)", en.id, want, got);
		report(arg, msg);
		bad++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(s, e, "check");
	return bad;
}

int
store_check(struct store *s, void (*report)(void *, const char *),
    void *arg, struct pi_error *e)
{
	sqlite3_stmt *st;
	const char *t;
	size_t i;
	int rc, bad = 0, n;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		if (sqlite3_prepare_v2(s->db, checks[i], -1, &st, NULL) !=
		    SQLITE_OK)
			return sql_err(s, e, "check");
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			t = sql_text(st, 0);
			if (i == 0 && t != NULL && strcmp(t, "ok") == 0)
				continue;
			report(arg, t ? t : "(null)");
			bad++;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return sql_err(s, e, "check");
	}
	if ((n = check_seals(s, report, arg, e)) == -1)
		return -1;
	return bad + n;
}
