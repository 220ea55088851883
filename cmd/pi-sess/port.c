/*
 * export and import: pi's session files (man/pi-session.5).
 *
 * export S writes one file of the tree S heads: S's path from the root,
 * then every entry its branches and children added, in the order they
 * were stored, with S's head last, since pi takes the last entry of a
 * file for its leaf.  import reads such a file (pi's versions 1 to 3),
 * makes a session of each branch in it (pifile.h), and keeps the
 * file's ids where they are free, so that export, import and export
 * again give the same file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sess.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "store/pifile.h"
#include "store/store.h"
#include "core/banned.h"

#define NONE	((size_t)-1)

struct export {
	struct ndjson_batch w;
	int64_t sess;		/* S */
	const char *head_id;
	char *head_line;	/* held back, to go last */
	size_t head_len;
};

static int
export_one(void *arg, const struct store_entry *en, struct pi_error *e)
{
	struct export *x = arg;
	char *line;
	size_t len;
	int rc = 0;

	line = pifile_entry_line(en->type, en->id, en->parent_id, en->ts,
	    en->data, en->data_len, &len);
	if (strcmp(en->id, x->head_id) == 0) {
		x->head_line = line;
		x->head_len = len;
		return 0;
	}
	if (ndjson_batch_line(&x->w, line, len) == -1)
		rc = sess_write_err(e, en->id);
	free(line);
	return rc;
}

/* The path before S's own entries: those S shares with its parents. */
static int
export_shared(void *arg, const struct store_entry *en, struct pi_error *e)
{
	struct export *x = arg;

	return en->pos.sess == x->sess ? 0 : export_one(arg, en, e);
}

int
verb_export(int argc, char **argv)
{
	struct store_session ss;
	struct export x;
	struct pi_error e;
	char *line;
	size_t len;
	int rc = 0;

	(void)argc;
	memset(&x, 0, sizeof(x));
	if (sess_open(0, &e) == -1 || sess_find(argv[0], &ss, &e) == -1) {
		if (strcmp(e.code, "no_database") == 0)
			pi_err(&e, PI_EXIT_INPUT, "unknown_id",
			    "no session '%s'", argv[0]);
		return sess_fail(&e);
	}
	ndjson_batch_init(&x.w, 1);
	x.sess = ss.seq;
	x.head_id = ss.head_id;
	line = pifile_header_line(ss.id, ss.created, ss.cwd,
	    *ss.parent_id ? ss.parent_id : NULL, &len);
	rc = ndjson_batch_line(&x.w, line, len);
	free(line);
	/* Each step fills e when it fails: a write by sess_write_err. */
	if ((rc == -1 && sess_write_err(&e, NULL)) ||
	    sess_path(ss.head, export_shared, &x, &e) == -1 ||
	    store_subtree_entries(&db, ss.seq, 0, export_one, &x, &e) == -1 ||
	    (x.head_line != NULL &&
	    ndjson_batch_line(&x.w, x.head_line, x.head_len) == -1 &&
	    sess_write_err(&e, ss.head_id)) ||
	    (ndjson_batch_flush(&x.w) == -1 && sess_write_err(&e, NULL)))
		rc = e.status == PI_EXIT_PIPE ? PI_EXIT_PIPE : sess_fail(&e);
	else
		rc = 0;
	free(x.head_line);
	ndjson_batch_release(&x.w);
	store_session_release(&ss);
	return rc;
}

static void
warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "pi-sess: %s\n", msg);
}

/* Ids we keep must look like ids: printable, no spaces, not too long. */
static int
good_id(const char *id)
{
	size_t n = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
	    "vwxyz0123456789._:-");

	return n > 0 && n <= STORE_ID_MAX && id[n] == '\0';
}

struct import {
	struct pifile f;
	char **ids;		/* each entry's id in the database */
	struct store_pos *pos;	/* where each entry went */
	struct store_session *ss;	/* each planned session, once made */
	char *cwd;
	int64_t parent;		/* the header's parentSession, if ours */
};

/* Point a reference to an entry of the file at its id in the database. */
static void
remap(struct import *im, struct json_object *d, const char *key)
{
	const char *id = jsonx_str(d, key);
	size_t k;

	if (id != NULL && (k = pifile_find(&im->f, id)) != NONE &&
	    strcmp(im->ids[k], id) != 0)
		jsonx_set_str(d, key, im->ids[k]);
}

static int
make_session(struct import *im, size_t k, struct pi_error *e)
{
	const struct pifile_session *ps = k < im->f.nsessions ?
	    &im->f.sessions[k] : NULL;
	struct store_pos bp = { 0, 0 };
	const char *id = NULL;
	int64_t parent = 0;
	int taken;

	if (k == 0) {
		/* The file's own session keeps its id where it is free. */
		if (good_id(im->f.id) &&
		    (taken = store_id_taken(&db, 0, im->f.id, e)) != 1) {
			if (taken == -1)
				return -1;
			id = im->f.id;
		}
		parent = im->parent;
	} else if (ps->parent != NONE)
		parent = im->ss[ps->parent].seq;
	else	/* another root in the same file */
		parent = im->ss[0].seq;
	if (ps != NULL && ps->bp != NONE)
		bp = im->pos[ps->bp];
	return store_session_new(&db, id, parent, bp, im->cwd, NULL,
	    k == 0 ? im->f.ts : im->f.v[ps->first].ts, &im->ss[k], e);
}

static int
import_entry(struct import *im, size_t i, const char *name,
    struct pi_error *e)
{
	struct pifile_entry *en = &im->f.v[i];
	struct store_new_entry ne;
	size_t k = en->session;

	if (im->ss[k].seq == 0 && make_session(im, k, e) == -1)
		return -1;
	remap(im, en->data, "firstKeptEntryId");
	remap(im, en->data, "targetId");
	remap(im, en->data, "fromId");
	memset(&ne, 0, sizeof(ne));
	ne.id = im->ids[i];
	ne.type = en->type;
	ne.ts = en->ts;
	ne.data = en->data;
	/* The store checks it, as it checks what append gives it. */
	if (store_append(&db, &im->ss[k], &ne, &im->pos[i], e) == -1) {
		if (e->status == PI_EXIT_INPUT)
			pi_err(e, PI_EXIT_INPUT, e->code, "%s:%zu: %s", name,
			    en->lineno, e->msg);
		return -1;
	}
	return 0;
}

static int
import_file(const char *path, struct pi_error *e)
{
	struct import im;
	struct store_session p;
	const char *name = strcmp(path, "-") ? path : "stdin";
	char fresh[37];
	size_t i;
	int fd, rc = -1, taken;

	memset(&im, 0, sizeof(im));
	pifile_init(&im.f);
	fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return pi_err(e, PI_EXIT_INPUT, "bad_file", "%s: %s", path,
		    strerror(errno));
	rc = pifile_read_fd(&im.f, fd, name, warn, NULL, e);
	if (fd != 0)
		close(fd);
	if (rc == -1)
		goto out;
	rc = -1;
	pifile_plan(&im.f);
	im.ids = xcalloc(im.f.n + 1, sizeof(*im.ids));
	im.pos = xcalloc(im.f.n + 1, sizeof(*im.pos));
	im.ss = xcalloc(im.f.nsessions + 1, sizeof(*im.ss));
	im.cwd = xstrdup(im.f.cwd && *im.f.cwd ? im.f.cwd : ".");
	if (store_begin(&db, e) == -1)
		goto out;
	if (im.f.parent_session != NULL &&
	    store_session_find(&db, im.f.parent_session, &p, NULL) == 1) {
		im.parent = p.seq;
		store_session_release(&p);
	}
	for (i = 0; i < im.f.n; i++) {
		if (good_id(im.f.v[i].id) &&
		    (taken = store_id_taken(&db, 1, im.f.v[i].id, e)) != 1) {
			if (taken == -1)
				goto fail;
			im.ids[i] = xstrdup(im.f.v[i].id);
		} else {
			pi_uuid7(fresh);
			im.ids[i] = xstrdup(fresh);
		}
	}
	/* The file's session first: other roots in it become its children. */
	if (make_session(&im, 0, e) == -1)
		goto fail;
	for (i = 0; i < im.f.n; i++)
		if (import_entry(&im, im.f.order[i], name, e) == -1)
			goto fail;
	/* Active when its last entry was made, not when it was imported. */
	for (i = 0; i < im.f.nsessions; i++)
		if (store_set_active(&db, &im.ss[i],
		    im.f.v[im.f.sessions[i].last].ts, e) == -1)
			goto fail;
	if (store_commit(&db, e) == -1)
		goto out;
	for (i = 0; i < im.f.nsessions || i == 0; i++)
		if (sess_print_id(im.ss[i].id, sess_json(&im.ss[i])) == -1) {
			pi_err(e, PI_EXIT_PIPE, "pipe", "stdout: %s",
			    strerror(errno));
			goto out;
		}
	rc = 0;
	goto out;
fail:
	store_rollback(&db);
out:
	for (i = 0; im.ids != NULL && i < im.f.n; i++)
		free(im.ids[i]);
	for (i = 0; im.ss != NULL && i <= im.f.nsessions; i++)
		store_session_release(&im.ss[i]);
	free(im.ids);
	free(im.pos);
	free(im.ss);
	free(im.cwd);
	pifile_release(&im.f);
	return rc;
}

int
verb_import(int argc, char **argv)
{
	struct pi_error e;
	int i, rc = 0;

	if (sess_open(1, &e) == -1)
		return sess_fail(&e);
	for (i = 0; i < argc; i++)
		if (import_file(argv[i], &e) == -1) {
			if (e.status == PI_EXIT_PIPE)
				return PI_EXIT_PIPE;
			if (rc == 0)
				rc = sess_fail(&e);
			else
				(void)sess_fail(&e);
		}
	return rc;
}
