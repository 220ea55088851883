/*
 * place: where pi keeps a user's sessions, for every program that must
 * find them.
 *
 * The sessions database is the first of PI_SESSIONS_DB,
 * $PI_HOME/sessions.db, $XDG_DATA_HOME/pi/sessions.db and
 * $HOME/.local/share/pi/sessions.db (pi-sess -d comes before all).
 * Beside a database DB, SQLite keeps DB-wal, DB-shm or DB-journal, and
 * pi keeps the full outputs of each session's tool calls in
 * DB.outputs/SESSION.  Returned strings are the caller's to free.
 */
#ifndef PI_PLACE_H
#define PI_PLACE_H

struct strv;

char *place_sessions_db(void);
/* The full outputs of session's tool calls. */
char *place_outputs(const char *db, const char *session);
/* What a sandbox must hide of a database: DB, its SQLite files and
 * DB.outputs, pushed to v. */
void place_db_paths(const char *db, struct strv *v);
/*
 * path made absolute and real as far as it exists: the real path of
 * its deepest existing directory, and the rest as written.
 */
char *place_resolve(const char *path);
/* Whether path a is b or a directory above it ("/" holds everything). */
int place_holds(const char *a, const char *b);

#endif
