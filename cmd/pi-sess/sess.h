/*
 * pi-sess's own header: what its verbs share.  One verb is one
 * function, in read.c (what looks), write.c (what changes the tree),
 * append.c and port.c (pi's session files); pi-sess.c holds main.
 */
#ifndef PI_SESS_H
#define PI_SESS_H

#include <stdint.h>

#include "store/store.h"

struct json_object;
struct pi_error;
struct ndjson_batch;

/* The options of every verb; which verb takes which is in pi-sess.c. */
struct opts {
	const char *db;
	int json;		/* --json: NDJSON, even for ids and on a tty */
	int table;		/* a table for a person: stdout is a tty */
	const char *name, *cwd, *parent, *at, *session;
	const char *summary_file, *first_kept;
	long long tokens_before;	/* -1: estimate */
	long pid;		/* 0: the parent's */
	int all, follow, recursive, force;
};

extern struct opts opt;
extern struct store db;

/* Open the database; create it for the verbs that write. */
int sess_open(int create, struct pi_error *e);
/* Report e on stderr and return its status. */
int sess_fail(const struct pi_error *e);
/* A session or an entry the user named. */
int sess_find(const char *id, struct store_session *ss, struct pi_error *e);
int sess_entry(const char *id, struct store_pos *pos, char full[],
    struct pi_error *e);
/* The absolute form of a directory, or NULL (errno set). */
char *sess_dir(const char *dir);
/* A session as a "session" line; the caller puts it. */
struct json_object *sess_json(const struct store_session *ss);
/* Write an object as a line to stdout; -1 when stdout failed. */
int sess_out(struct json_object *o);
/*
 * Fill e for a line that could not be written (errno says why): the
 * reader went away (PI_EXIT_PIPE), the line of entry id (when not
 * NULL) is over the cap, or stdout failed.  Returns -1.
 */
int sess_write_err(struct pi_error *e, const char *id);
/* An id as printed in tables: its shortest unique prefix, 13 at least
 * (the 48 bits of time that start a UUIDv7). */
void sess_short(char out[], const char *id, int is_entry);
/* "3m ago" or a date, for tables. */
void sess_when(char out[32], int64_t ms);
/* Print a new id: bare, or with --json as line (which it puts). */
int sess_print_id(const char *id, struct json_object *line);
/* Walk back from head, the entries root first, to fn. */
int sess_path(struct store_pos head,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e);

int verb_new(int, char **);
int verb_ls(int, char **);
int verb_show(int, char **);
int verb_log(int, char **);
int verb_tree(int, char **);
int verb_context(int, char **);
int verb_append(int, char **);
int verb_branch(int, char **);
int verb_name(int, char **);
int verb_label(int, char **);
int verb_rm(int, char **);
int verb_compact(int, char **);
int verb_lock(int, char **);
int verb_unlock(int, char **);
int verb_export(int, char **);
int verb_import(int, char **);
int verb_check(int, char **);

#endif
