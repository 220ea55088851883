/*
 * pi-sess: the session tree in SQLite.  Entries are commits, sessions
 * are branches: an entry never changes once stored, appending moves only
 * its session's head, and branching copies nothing.
 *
 * One verb per call (pi-sess VERB ...).  What it prints is NDJSON, or a
 * table for a person when stdout is a terminal; ids it makes are printed
 * bare, one per line, for $(...).  The exit status says how it went
 * (pi-sess(1) EXIT STATUS).
 */
#define _XOPEN_SOURCE 700	/* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sess.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "store/store.h"
#include "core/banned.h"

struct opts opt = { .tokens_before = -1 };
struct store db;

static const char usage_text[] =
    "usage: pi-sess [-hV] [-d db] [--json] verb [arg ...]\n"
    "       pi-sess new [--name text] [--cwd dir] [--parent session "
    "[--at entry]]\n"
    "       pi-sess ls [--all | --cwd dir]\n"
    "       pi-sess show | log | export session\n"
    "       pi-sess tree [session]\n"
    "       pi-sess context [--at entry] session\n"
    "       pi-sess append [--follow] session\n"
    "       pi-sess branch session [entry]\n"
    "       pi-sess name session text\n"
    "       pi-sess label [--session session] entry text\n"
    "       pi-sess rm [-r] [--force] session\n"
    "       pi-sess compact --summary-file file --first-kept entry\n"
    "               [--tokens-before n] session\n"
    "       pi-sess lock | unlock [--force] [--pid pid] session\n"
    "       pi-sess import file ...\n"
    "       pi-sess check\n";

static _Noreturn void
usage(void)
{
	fputs(usage_text, stderr);
	exit(PI_EXIT_USAGE);
}

#define usage_err(...)	pi_usage_err("pi-sess", usage_text, __VA_ARGS__)

/* Options by bit, so each verb can say which it takes. */
enum {
	O_NAME = 1 << 0, O_CWD = 1 << 1, O_PARENT = 1 << 2, O_AT = 1 << 3,
	O_ALL = 1 << 4, O_FOLLOW = 1 << 5, O_R = 1 << 6, O_SESSION = 1 << 7,
	O_SUMMARY = 1 << 8, O_KEPT = 1 << 9, O_TOKENS = 1 << 10,
	O_PID = 1 << 11, O_FORCE = 1 << 12
};

static const struct verb {
	const char *name;
	int (*fn)(int, char **);
	unsigned opts;
	int min, max;		/* operands; max -1: any */
} verbs[] = {
	{ "new", verb_new, O_NAME | O_CWD | O_PARENT | O_AT, 0, 0 },
	{ "ls", verb_ls, O_ALL | O_CWD, 0, 0 },
	{ "show", verb_show, 0, 1, 1 },
	{ "log", verb_log, 0, 1, 1 },
	{ "tree", verb_tree, 0, 0, 1 },
	{ "context", verb_context, O_AT, 1, 1 },
	{ "append", verb_append, O_FOLLOW, 1, 1 },
	{ "branch", verb_branch, 0, 1, 2 },
	{ "name", verb_name, 0, 2, 2 },
	{ "label", verb_label, O_SESSION, 2, 2 },
	{ "rm", verb_rm, O_R | O_FORCE, 1, 1 },
	{ "compact", verb_compact, O_SUMMARY | O_KEPT | O_TOKENS, 1, 1 },
	{ "lock", verb_lock, O_PID | O_FORCE, 1, 1 },
	{ "unlock", verb_unlock, O_PID | O_FORCE, 1, 1 },
	{ "export", verb_export, 0, 1, 1 },
	{ "import", verb_import, 0, 1, -1 },
	{ "check", verb_check, 0, 0, 0 },
};

enum {
	L_JSON = 256, L_NAME, L_CWD, L_PARENT, L_AT, L_ALL, L_FOLLOW,
	L_SESSION, L_SUMMARY, L_KEPT, L_TOKENS, L_PID, L_FORCE
};

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "json", no_argument, NULL, L_JSON },
	{ "name", required_argument, NULL, L_NAME },
	{ "cwd", required_argument, NULL, L_CWD },
	{ "parent", required_argument, NULL, L_PARENT },
	{ "at", required_argument, NULL, L_AT },
	{ "all", no_argument, NULL, L_ALL },
	{ "follow", no_argument, NULL, L_FOLLOW },
	{ "session", required_argument, NULL, L_SESSION },
	{ "summary-file", required_argument, NULL, L_SUMMARY },
	{ "first-kept", required_argument, NULL, L_KEPT },
	{ "tokens-before", required_argument, NULL, L_TOKENS },
	{ "pid", required_argument, NULL, L_PID },
	{ "force", no_argument, NULL, L_FORCE },
	{ NULL, 0, NULL, 0 }
};

int
sess_open(int create, struct pi_error *e)
{
	char *path = opt.db ? xstrdup(opt.db) : store_default_path();
	int rc = store_open(&db, path, create, e);

	free(path);
	return rc;
}

int
sess_fail(const struct pi_error *e)
{
	fprintf(stderr, "pi-sess: %s\n", e->msg);
	return e->status ? e->status : PI_EXIT_FAIL;
}

int
sess_find(const char *id, struct store_session *ss, struct pi_error *e)
{
	return store_session_find(&db, id, ss, e);
}

/* An entry by id or prefix; full gets its whole id when not NULL. */
static int
copy_id(void *arg, const struct store_entry *en, struct pi_error *e)
{
	(void)e;
	(void)snprintf(arg, STORE_ID_MAX + 1, "%s", en->id);
	return 0;
}

int
sess_entry(const char *id, struct store_pos *pos, char full[],
    struct pi_error *e)
{
	if (store_entry_find(&db, id, pos, e) == -1)
		return -1;
	if (full != NULL && store_entry_get(&db, *pos, copy_id, full, e) == -1)
		return -1;
	return 1;
}

char *
sess_dir(const char *dir)
{
	char buf[PATH_MAX];

	if (dir == NULL) {
		if (getcwd(buf, sizeof(buf)) == NULL)
			return NULL;
		return xstrdup(buf);
	}
	if (realpath(dir, buf) == NULL)
		return NULL;
	return xstrdup(buf);
}

static struct json_object *
str_or_null(const char *s)
{
	return s != NULL && *s != '\0' ? json_object_new_string(s) : NULL;
}

struct json_object *
sess_json(const struct store_session *ss)
{
	struct json_object *o = json_object_new_object(), *l;

	jsonx_set_str(o, "type", "session");
	jsonx_set_str(o, "id", ss->id);
	jsonx_set(o, "name", str_or_null(ss->name));
	jsonx_set_str(o, "cwd", ss->cwd ? ss->cwd : "");
	jsonx_set(o, "parentId", str_or_null(ss->parent_id));
	jsonx_set(o, "branchPoint", str_or_null(ss->bp_id));
	jsonx_set(o, "headId", str_or_null(ss->head_id));
	jsonx_set_int(o, "entries", ss->depth);
	jsonx_set_int(o, "createdAt", ss->created);
	jsonx_set_int(o, "lastActiveAt", ss->active);
	if (ss->lock.pid > 0) {
		l = json_object_new_object();
		jsonx_set_int(l, "pid", ss->lock.pid);
		jsonx_set_str(l, "host", ss->lock.host);
		jsonx_set_int(l, "since", ss->lock.at);
		jsonx_set(o, "lock", l);
	} else
		jsonx_set(o, "lock", NULL);
	return o;
}

int
sess_write_err(struct pi_error *e, const char *id)
{
	if (errno == EPIPE)
		return pi_err(e, PI_EXIT_PIPE, "pipe", "stdout: %s",
		    strerror(errno));
	if (errno == EFBIG && id != NULL)
		return pi_err(e, PI_EXIT_INPUT, "bad_input", "entry %s: its "
		    "line would be longer than %u bytes (stored by an older "
		    "pi-sess)", id, PI_MAX_LINE);
	if (errno == EFBIG)
		return pi_err(e, PI_EXIT_FAIL, "io", "stdout: a line longer "
		    "than %u bytes", PI_MAX_LINE);
	return pi_err(e, PI_EXIT_FAIL, "io", "stdout: %s", strerror(errno));
}

int
sess_out(struct json_object *o)
{
	int rc = ndjson_write(1, o);

	json_object_put(o);
	return rc;
}

void
sess_short(char out[], const char *id, int is_entry)
{
	size_t n = store_unique_len(&db, is_entry, id, 13);

	(void)snprintf(out, STORE_ID_MAX + 1, "%.*s", (int)n, id);
}

void
sess_when(char out[32], int64_t ms)
{
	long long ago = (pi_now_ms() - ms) / 1000;
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ago < 0)
		ago = 0;
	if (ago < 60)
		(void)snprintf(out, 32, "%llds ago", ago);
	else if (ago < 3600)
		(void)snprintf(out, 32, "%lldm ago", ago / 60);
	else if (ago < 86400)
		(void)snprintf(out, 32, "%lldh ago", ago / 3600);
	else if (ago < 30 * 86400)
		(void)snprintf(out, 32, "%lldd ago", ago / 86400);
	else if (localtime_r(&t, &tm) != NULL)
		(void)strftime(out, 32, "%Y-%m-%d", &tm);
	else
		(void)snprintf(out, 32, "?");
}

int
sess_print_id(const char *id, struct json_object *line)
{
	if (opt.json)
		return sess_out(line);
	json_object_put(line);
	return printf("%s\n", id) < 0 ? -1 : 0;
}

/* The entries of a path, copied while walking back. */
struct path {
	struct store_entry *v;
	size_t n, cap;
};

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int
collect(void *arg, const struct store_entry *en, struct pi_error *e)
{
	struct path *p = arg;
	struct store_entry *c;

	(void)e;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->v = xrealloc(p->v, p->cap * sizeof(*p->v));
	}
	c = &p->v[p->n++];
	*c = *en;
	c->id = xstrdup(en->id);
	c->parent_id = dup_or_null(en->parent_id);
	c->type = xstrdup(en->type);
	c->role = dup_or_null(en->role);
	c->message_id = dup_or_null(en->message_id);
	c->tool_call_id = dup_or_null(en->tool_call_id);
	c->data = xstrndup(en->data, en->data_len);
	c->hash = NULL;
	c->invalid = dup_or_null(en->invalid);
	return 0;
}

int
sess_path(struct store_pos head,
    int (*fn)(void *, const struct store_entry *, struct pi_error *),
    void *arg, struct pi_error *e)
{
	struct path p = { NULL, 0, 0 };
	size_t i;
	int rc;

	rc = store_walk_back(&db, head, collect, &p, e);
	for (i = p.n; rc != -1 && i-- > 0;)
		if ((rc = fn(arg, &p.v[i], e)) != 0)
			break;
	for (i = 0; i < p.n; i++) {
		free((char *)p.v[i].id);
		free((char *)p.v[i].parent_id);
		free((char *)p.v[i].type);
		free((char *)p.v[i].role);
		free((char *)p.v[i].message_id);
		free((char *)p.v[i].tool_call_id);
		free((char *)p.v[i].data);
		free((char *)p.v[i].invalid);
	}
	free(p.v);
	return rc == -1 ? -1 : 0;
}

static unsigned
option_bit(int c)
{
	switch (c) {
	case L_NAME: return O_NAME;
	case L_CWD: return O_CWD;
	case L_PARENT: return O_PARENT;
	case L_AT: return O_AT;
	case L_ALL: return O_ALL;
	case L_FOLLOW: return O_FOLLOW;
	case 'r': return O_R;
	case L_SESSION: return O_SESSION;
	case L_SUMMARY: return O_SUMMARY;
	case L_KEPT: return O_KEPT;
	case L_TOKENS: return O_TOKENS;
	case L_PID: return O_PID;
	case L_FORCE: return O_FORCE;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct verb *v = NULL;
	unsigned given = 0;
	long n;
	int c, i, rc, nargs;
	size_t k;

	pi_check_fds();
	pi_unblock_signals();
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt_long(argc, argv, "d:hrV", longopts, NULL)) != -1) {
		given |= option_bit(c);
		switch (c) {
		case 'd':
			opt.db = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL;
		case 'V':
			puts("pi-sess " PI_VERSION);
			return fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL;
		case 'r':
			opt.recursive = 1;
			break;
		case L_JSON:
			opt.json = 1;
			break;
		case L_NAME:
			opt.name = optarg;
			break;
		case L_CWD:
			opt.cwd = optarg;
			break;
		case L_PARENT:
			opt.parent = optarg;
			break;
		case L_AT:
			opt.at = optarg;
			break;
		case L_ALL:
			opt.all = 1;
			break;
		case L_FOLLOW:
			opt.follow = 1;
			break;
		case L_SESSION:
			opt.session = optarg;
			break;
		case L_SUMMARY:
			opt.summary_file = optarg;
			break;
		case L_KEPT:
			opt.first_kept = optarg;
			break;
		case L_TOKENS:
			if (pi_parse_long(optarg, 0, LONG_MAX, &n) != 0)
				usage_err("--tokens-before: '%s' is not a "
				    "count", optarg);
			opt.tokens_before = n;
			break;
		case L_PID:
			if (pi_parse_long(optarg, 1, INT_MAX, &n) != 0)
				usage_err("--pid: '%s' is not a process id",
				    optarg);
			opt.pid = n;
			break;
		case L_FORCE:
			opt.force = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	opt.table = !opt.json && isatty(1);
	if (argc < 1)
		usage_err("no verb");
	for (k = 0; k < sizeof(verbs) / sizeof(verbs[0]); k++)
		if (strcmp(verbs[k].name, argv[0]) == 0)
			v = &verbs[k];
	if (v == NULL)
		usage_err("unknown verb '%s'", argv[0]);
	if (given & ~v->opts) {
		for (i = 0; longopts[i].name != NULL; i++)
			if (option_bit(longopts[i].val) & given & ~v->opts)
				usage_err("%s takes no --%s", v->name,
				    longopts[i].name);
		usage_err("%s takes no -r", v->name);
	}
	nargs = argc - 1;
	if (nargs < v->min || (v->max >= 0 && nargs > v->max))
		usage_err("%s takes %s", v->name, v->max == 0 ? "no operand" :
		    v->min == v->max ? (v->min == 1 ? "one operand" :
		    "two operands") : v->max < 0 ? "one or more operands" :
		    "one or two operands");
	if (opt.at != NULL && v->fn == verb_new && opt.parent == NULL)
		usage_err("new: --at needs --parent");
	if (opt.all && opt.cwd != NULL)
		usage_err("ls: --all and --cwd do not go together");
	rc = v->fn(nargs, argv + 1);
	store_close(&db);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return PI_EXIT_PIPE;
		fprintf(stderr, "pi-sess: stdout: %s\n", strerror(errno));
		return rc ? rc : PI_EXIT_FAIL;
	}
	return rc;
}
