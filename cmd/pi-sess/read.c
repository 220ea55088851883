/*
 * The verbs that only look: ls, show, log, tree, context and check.
 * Each prints NDJSON, or a table when stdout is a terminal (context
 * always prints NDJSON: it is for pi-llm).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sess.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "store/chain.h"
#include "store/pifile.h"
#include "store/projection.h"
#include "store/store.h"
#include "core/banned.h"

/* A database not made yet holds no sessions: nothing to list. */
static int
open_for_reading(int *rc)
{
	struct pi_error e;

	if (sess_open(0, &e) == 0)
		return 0;
	*rc = strcmp(e.code, "no_database") == 0 ? 0 : sess_fail(&e);
	return -1;
}

/* Open, then find the session, or say why not. */
static int
open_session(const char *id, struct store_session *ss, int *rc)
{
	struct pi_error e;

	if (sess_open(0, &e) == -1 || sess_find(id, ss, &e) == -1) {
		if (strcmp(e.code, "no_database") == 0)
			pi_err(&e, PI_EXIT_INPUT, "unknown_id",
			    "no session '%s'", id);
		*rc = sess_fail(&e);
		return -1;
	}
	return 0;
}

static void
table_row(const struct store_session *ss, int with_cwd)
{
	char id[STORE_ID_MAX + 1], when[32];

	sess_short(id, ss->id, 0);
	sess_when(when, ss->active);
	printf("%-13s %7lld  %-9s %s%s%s\n", id, (long long)ss->depth, when,
	    ss->name ? ss->name : "-", with_cwd ? "  " : "",
	    with_cwd ? ss->cwd : "");
}

static int
ls_one(void *arg, const struct store_session *ss)
{
	int *rc = arg;

	if (opt.table) {
		table_row(ss, opt.all);
		return 0;
	}
	if (sess_out(sess_json(ss)) == -1) {
		*rc = PI_EXIT_PIPE;
		return 1;
	}
	return 0;
}

int
verb_ls(int argc, char **argv)
{
	struct pi_error e;
	char *cwd = NULL;
	int rc = 0;

	(void)argc;
	(void)argv;
	if (!opt.all && (cwd = sess_dir(opt.cwd)) == NULL) {
		pi_err(&e, PI_EXIT_USAGE, "bad_dir", "--cwd %s: %s",
		    opt.cwd ? opt.cwd : ".", strerror(errno));
		return sess_fail(&e);
	}
	if (open_for_reading(&rc) == -1) {
		free(cwd);
		return rc;
	}
	if (opt.table)
		printf("%-13s %7s  %-9s %s\n", "SESSION", "ENTRIES", "ACTIVE",
		    opt.all ? "NAME  CWD" : "NAME");
	if (store_sessions(&db, cwd, ls_one, &rc, &e) == -1)
		rc = sess_fail(&e);
	free(cwd);
	return rc;
}

/* An entry's hash, in hex ("" when it has none). */
static int
hash_hex(void *arg, const struct store_entry *en, struct pi_error *e)
{
	char *out = arg;

	(void)e;
	if (en->hash != NULL)
		chain_hex(en->hash, out);
	return 0;
}

static int
add_child(void *arg, const struct store_session *ss)
{
	json_object_array_add(arg, json_object_new_string(ss->id));
	return 0;
}

int
verb_show(int argc, char **argv)
{
	struct store_session ss;
	struct projection p;
	struct json_object *o, *kids = json_object_new_array(), *m;
	struct pi_error e;
	char when[32], hash[2 * CHAIN_LEN + 1] = "";
	size_t i;
	int rc = 0;

	(void)argc;
	if (open_session(argv[0], &ss, &rc) == -1) {
		json_object_put(kids);
		return rc;
	}
	projection_init(&p);
	if (store_children(&db, ss.seq, add_child, kids, &e) == -1 ||
	    projection_build(&p, &db, ss.head, &e) == -1 ||
	    (ss.head.n > 0 &&
	    store_entry_get(&db, ss.head, hash_hex, hash, &e) == -1)) {
		rc = sess_fail(&e);
		goto out;
	}
	o = sess_json(&ss);
	jsonx_set(o, "headHash", *hash ? json_object_new_string(hash) : NULL);
	jsonx_set(o, "branches", jsonx_ref(kids));
	if (p.provider != NULL) {
		m = json_object_new_object();
		jsonx_set_str(m, "provider", p.provider);
		jsonx_set_str(m, "modelId", p.model);
		jsonx_set(o, "model", m);
	} else
		jsonx_set(o, "model", NULL);
	jsonx_set_str(o, "thinkingLevel", p.thinking ? p.thinking : "off");
	jsonx_set_int(o, "contextMessages", (int64_t)p.n + (p.summary != NULL));
	if (!opt.table) {
		rc = sess_out(o) == -1 ? PI_EXIT_PIPE : 0;
		goto out;
	}
	printf("session   %s\n", ss.id);
	printf("name      %s\n", ss.name ? ss.name : "-");
	printf("cwd       %s\n", ss.cwd);
	printf("parent    %s\n", *ss.parent_id ? ss.parent_id : "-");
	printf("branched  %s\n", *ss.bp_id ? ss.bp_id : "-");
	printf("head      %s\n", *ss.head_id ? ss.head_id : "-");
	printf("hash      %s\n", *hash ? hash : "-");
	printf("entries   %lld (%lld its own)\n", (long long)ss.depth,
	    (long long)ss.count);
	printf("context   %zu messages\n", p.n + (p.summary != NULL));
	printf("model     %s%s%s, thinking %s\n", p.provider ? p.provider : "-",
	    p.provider ? "/" : "", p.model ? p.model : "",
	    p.thinking ? p.thinking : "off");
	sess_when(when, ss.created);
	printf("created   %s\n", when);
	sess_when(when, ss.active);
	printf("active    %s\n", when);
	if (ss.lock.pid > 0)
		printf("locked    by pid %ld on %s\n", ss.lock.pid,
		    ss.lock.host);
	for (i = 0; i < json_object_array_length(kids); i++)
		printf("%s %s\n", i ? "         " : "branches ",
		    json_object_get_string(json_object_array_get_idx(kids, i)));
	json_object_put(o);
out:
	json_object_put(kids);
	projection_release(&p);
	store_session_release(&ss);
	return rc;
}

/* The first line of a message's text, or what the entry is, for a table. */
static void
summary(const struct store_entry *en, char *out, size_t size)
{
	struct json_object *o = jsonx_parse(en->data, en->data_len, NULL), *c;
	const char *t = NULL;
	size_t i, n;

	c = jsonx_get(o, "content");
	if (jsonx_is(c, json_type_string))
		t = json_object_get_string(c);
	for (i = 0; t == NULL && jsonx_is(c, json_type_array) &&
	    i < json_object_array_length(c); i++) {
		struct json_object *b = json_object_array_get_idx(c, i);

		if ((t = jsonx_str(b, "text")) == NULL &&
		    jsonx_str(b, "name") != NULL)
			t = jsonx_str(b, "name");
	}
	if (t == NULL)
		t = jsonx_str(o, "summary") ? jsonx_str(o, "summary") :
		    jsonx_str(o, "name") ? jsonx_str(o, "name") :
		    jsonx_str(o, "modelId") ? jsonx_str(o, "modelId") :
		    jsonx_str(o, "thinkingLevel") ?
		    jsonx_str(o, "thinkingLevel") :
		    jsonx_str(o, "label") ? jsonx_str(o, "label") : "";
	n = strcspn(t, "\n");
	(void)snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), t);
	json_object_put(o);
}

static int
log_one(void *arg, const struct store_entry *en, struct pi_error *e)
{
	struct ndjson_batch *w = arg;
	char id[STORE_ID_MAX + 1], when[32], text[58];
	char *line;
	size_t len;
	int rc;

	if (opt.table) {
		sess_short(id, en->id, 1);
		sess_when(when, en->ts);
		summary(en, text, sizeof(text));
		printf("%-13s %-9s %-12s %s\n", id, when, en->role ? en->role :
		    en->type, text);
		return 0;
	}
	line = pifile_entry_line(en->type, en->id, en->parent_id, en->ts,
	    en->data, en->data_len, &len);
	if ((rc = ndjson_batch_line(w, line, len)) == -1)
		sess_write_err(e, en->id);
	free(line);
	return rc;
}

int
verb_log(int argc, char **argv)
{
	struct store_session ss;
	struct ndjson_batch w;
	struct pi_error e;
	int rc = 0;

	(void)argc;
	if (open_session(argv[0], &ss, &rc) == -1)
		return rc;
	ndjson_batch_init(&w, 1);
	if (sess_path(ss.head, log_one, &w, &e) == -1 ||
	    (ndjson_batch_flush(&w) == -1 && sess_write_err(&e, NULL)))
		rc = e.status == PI_EXIT_PIPE ? PI_EXIT_PIPE : sess_fail(&e);
	ndjson_batch_release(&w);
	store_session_release(&ss);
	return rc;
}

/* The tree: each session, then its children, indented. */
struct tree {
	int64_t mark;		/* the session asked about */
	char prefix[512];
	int level;
	int rc;
	struct pi_error e;
};

static int tree_children(struct tree *t, int64_t seq);

static int
tree_one(void *arg, const struct store_session *ss, int last)
{
	struct tree *t = arg;
	char id[STORE_ID_MAX + 1], bp[STORE_ID_MAX + 1], when[32];
	struct json_object *o;
	size_t len = strlen(t->prefix);

	if (!opt.table) {
		o = sess_json(ss);
		jsonx_set_int(o, "level", t->level);
		if (sess_out(o) == -1) {
			t->rc = PI_EXIT_PIPE;
			return -1;
		}
	} else {
		sess_short(id, ss->id, 0);
		sess_when(when, ss->active);
		if (*ss->bp_id)
			sess_short(bp, ss->bp_id, 1);
		printf("%s%s%s%s  %s%s%lld %s, %s%s%s\n", t->prefix,
		    t->level == 0 ? "" : last ? "`-- " : "|-- ",
		    ss->seq == t->mark ? "* " : "", id,
		    ss->name ? ss->name : "", ss->name ? "  " : "",
		    (long long)ss->depth, ss->depth == 1 ? "entry" : "entries",
		    when, *ss->bp_id ? ", at " : "", *ss->bp_id ? bp : "");
	}
	if (t->level > 0 && len + 4 < sizeof(t->prefix))
		memcpy(t->prefix + len, last ? "    " : "|   ", 5);
	t->level++;
	if (tree_children(t, ss->seq) == -1)
		return -1;
	t->level--;
	t->prefix[len] = '\0';
	return 0;
}

/* Children are gathered first: the walk below reuses the statement. */
struct kids {
	struct store_session *v;
	size_t n, cap;
};

static int
gather(void *arg, const struct store_session *ss)
{
	struct kids *k = arg;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->v = xrealloc(k->v, k->cap * sizeof(*k->v));
	}
	k->v[k->n] = *ss;
	k->v[k->n].cwd = xstrdup(ss->cwd ? ss->cwd : "");
	k->v[k->n].name = ss->name ? xstrdup(ss->name) : NULL;
	k->n++;
	return 0;
}

static int
tree_children(struct tree *t, int64_t seq)
{
	struct kids k = { NULL, 0, 0 };
	size_t i;
	int rc = 0;

	if (store_children(&db, seq, gather, &k, &t->e) == -1)
		rc = -1;
	for (i = 0; rc == 0 && i < k.n; i++)
		rc = tree_one(t, &k.v[i], i + 1 == k.n);
	for (i = 0; i < k.n; i++)
		store_session_release(&k.v[i]);
	free(k.v);
	return rc;
}

static int
by_creation(const void *a, const void *b)
{
	const struct store_session *x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
gather_roots(void *arg, const struct store_session *ss)
{
	return ss->parent == 0 ? gather(arg, ss) : 0;
}

int
verb_tree(int argc, char **argv)
{
	struct tree t;
	struct store_session ss, up;
	struct kids roots = { NULL, 0, 0 };
	size_t i;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	if (argc == 1) {
		if (open_session(argv[0], &ss, &rc) == -1)
			return rc;
		t.mark = ss.seq;
		/* Draw the whole tree S is in, from its root session. */
		while (ss.parent != 0) {
			if (store_session_get(&db, ss.parent, &up, &t.e) == -1) {
				store_session_release(&ss);
				return sess_fail(&t.e);
			}
			store_session_release(&ss);
			ss = up;
		}
		gather(&roots, &ss);
		store_session_release(&ss);
	} else {
		if (open_for_reading(&rc) == -1)
			return rc;
		if (store_sessions(&db, NULL, gather_roots, &roots, &t.e) == -1)
			return sess_fail(&t.e);
	}
	/* Oldest tree first, as git log --graph --reverse reads. */
	qsort(roots.v, roots.n, sizeof(*roots.v), by_creation);
	for (i = 0; rc == 0 && i < roots.n; i++)
		if (tree_one(&t, &roots.v[i], 1) == -1)
			rc = t.rc ? t.rc : sess_fail(&t.e);
	for (i = 0; i < roots.n; i++)
		store_session_release(&roots.v[i]);
	free(roots.v);
	return rc;
}

int
verb_context(int argc, char **argv)
{
	struct store_session ss;
	struct store_pos head;
	struct projection p;
	struct ndjson_batch w;
	struct pi_error e;
	char at[STORE_ID_MAX + 1];
	size_t i;
	int rc = 0, on;

	(void)argc;
	if (open_session(argv[0], &ss, &rc) == -1)
		return rc;
	head = ss.head;
	(void)snprintf(at, sizeof(at), "%s", ss.head_id);
	projection_init(&p);
	ndjson_batch_init(&w, 1);
	if (opt.at != NULL) {
		if (sess_entry(opt.at, &head, at, &e) == -1)
			goto fail;
		if ((on = store_on_path(&db, ss.head, head, &e)) == -1)
			goto fail;
		if (!on) {
			pi_err(&e, PI_EXIT_INPUT, "not_on_path", "entry '%s' "
			    "is not in session '%s'", at, ss.id);
			goto fail;
		}
	}
	if (projection_build(&p, &db, head, &e) == -1)
		goto fail;
	/* Entries pi-llm would refuse, stored by an older pi-sess. */
	for (i = 0; i < p.skipped.n; i++)
		fprintf(stderr, "pi-sess: entry %s (stored by an older pi-sess:"
		    " left out of the context)\n", p.skipped.v[i]);
	if ((projection_write(&p, ss.id, at, &w) == -1 ||
	    ndjson_batch_flush(&w) == -1) && sess_write_err(&e, NULL))
		rc = e.status == PI_EXIT_PIPE ? PI_EXIT_PIPE : sess_fail(&e);
	goto out;
fail:
	rc = sess_fail(&e);
out:
	ndjson_batch_release(&w);
	projection_release(&p);
	store_session_release(&ss);
	return rc;
}

static void
report(void *arg, const char *problem)
{
	struct json_object *a = arg;

	json_object_array_add(a, json_object_new_string(problem));
}

int
verb_check(int argc, char **argv)
{
	struct json_object *o, *problems = json_object_new_array();
	struct pi_error e;
	size_t i;
	int bad, rc = 0;

	(void)argc;
	(void)argv;
	if (open_for_reading(&rc) == -1) {
		json_object_put(problems);
		return rc;
	}
	if ((bad = store_check(&db, report, problems, &e)) == -1) {
		json_object_put(problems);
		return sess_fail(&e);
	}
	if (!opt.table) {
		o = json_object_new_object();
		jsonx_set_str(o, "type", "check");
		jsonx_set_bool(o, "ok", bad == 0);
		jsonx_set(o, "problems", problems);
		if (sess_out(o) == -1)
			return PI_EXIT_PIPE;
	} else {
		for (i = 0; i < json_object_array_length(problems); i++)
			printf("%s\n", json_object_get_string(
			    json_object_array_get_idx(problems, i)));
		printf("%s\n", bad ? "damaged" : "ok");
		json_object_put(problems);
	}
	if (bad)
		fprintf(stderr, "pi-sess: %s: %d problem%s found\n", db.path,
		    bad, bad == 1 ? "" : "s");
	return bad ? PI_EXIT_FAIL : 0;
}
