/*
 * pi-loop: the agent loop as a composition of processes.  Each turn,
 * pi-sess gives the context, pi-llm makes one model call whose events
 * go straight to stdout, and each tool call runs in its own sandboxed
 * pi-tool; one pi-sess append co-process records everything, and an
 * assistant message is stored before any of its tools starts.
 *
 * stdout is the event stream (pi-events(5)), agent_end always last; with
 * -p only the final answer.  The exit status says how the run ended.
 */
#define _XOPEN_SOURCE 700	/* realpath, mkdtemp */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loop.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/place.h"
#include "core/proc.h"
#include "core/rmtree.h"
#include "core/util.h"
#include "core/banned.h"

struct loop L;

static const char usage_text[] =
    "usage: pi-loop [-hpV] [-c | --new | --no-session | -s session] "
    "[-d db] [-m [provider/]model]\n"
    "               [-t level] [-w dir] [--allow-db-in-workspace] "
    "[--allow-degraded]\n"
    "               [--allow-read path] [--api api] "
    "[--append-system text | @file]\n"
    "               [--base-url url] [--context-window n] "
    "[--deny-tools list] [--grace dur]\n"
    "               [--idle-timeout dur] [--keep-recent n] "
    "[--max-cost usd] [--max-turns n]\n"
    "               [--network] [--parallel n] [--parent session] "
    "[--policy file] [--reserve n]\n"
    "               [--rpc] [--system text | @file] [--timeout dur] "
    "[--tool-dir dir] [--tools list]\n"
    "               [--verbose-context] [prompt ...]\n";

static _Noreturn void
usage(void)
{
	fputs(usage_text, stderr);
	exit(PI_EXIT_USAGE);
}

#define usage_err(...)	pi_usage_err("pi-loop", usage_text, __VA_ARGS__)

static void
on_signal(int sig)
{
	unsigned char b = (unsigned char)sig;
	int saved = errno;

	(void)write(L.sigfd[1], &b, 1);
	errno = saved;
}

static void
signals(void)
{
	struct sigaction sa;

	if (proc_pipe(L.sigfd) == -1) {
		fprintf(stderr, "pi-loop: pipe: %s\n", strerror(errno));
		exit(PI_EXIT_FAIL);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGCHLD, &sa, NULL);
	(void)signal(SIGPIPE, SIG_IGN);
}

static void
stage_dir(void)
{
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return;
	path[n] = '\0';
	if ((slash = strrchr(path, '/')) != NULL) {
		*slash = '\0';
		L.stage_dir = xstrdup(path);
	}
}

static long long
duration(const char *opt, const char *s)
{
	long long ms;

	if (pi_parse_duration(s, 100.0 * 365 * 86400, &ms) != 0)
		usage_err("%s: '%s' is not a duration (seconds, or a number "
		    "with s, m or h)", opt, s);
	return ms;
}

static long
count(const char *opt, const char *s, long min)
{
	long n;

	if (pi_parse_long(s, min, LONG_MAX, &n) != 0)
		usage_err("%s: '%s' is not a whole number of at least %ld",
		    opt, s, min);
	return n;
}

/* A prompt from stdin, when it is not a terminal. */
static char *
read_stdin(void)
{
	struct buf b;

	buf_init(&b, 64u << 20);
	if (buf_read_fd(&b, 0) == -1) {
		fprintf(stderr, "pi-loop: stdin: %s\n", errno == EFBIG ?
		    "more than 64 MiB" : strerror(errno));
		exit(PI_EXIT_INPUT);
	}
	while (b.len > 0 && (b.data[b.len - 1] == '\n' ||
	    b.data[b.len - 1] == '\r'))
		b.data[--b.len] = '\0';
	return buf_detach(&b, NULL);
}

/* The one line a pi-sess verb printed, or NULL. */
static char *
sess_line(const char *const *args, int *code)
{
	struct pi_error e;
	struct buf out;
	char *nl;

	buf_init(&out, 16u << 20);
	*code = sess_run(args, NULL, &out, &e);
	if (*code == -1)
		*code = e.status;
	if (*code != 0 || out.len == 0) {
		buf_release(&out);
		return NULL;
	}
	if ((nl = memchr(out.data, '\n', out.len)) != NULL)
		*nl = '\0';
	return buf_detach(&out, NULL);
}

static int
setup_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2,
    3)));

/* A failure before the run: said on stderr, as an error and agent_end. */
static int
setup_fail(int code, const char *fmt, ...)
{
	struct json_object *ev;
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(L.term_msg, sizeof(L.term_msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pi-loop: %s\n", L.term_msg);
	loop_error_event("setup", L.term_msg, code == PI_EXIT_TEMP);
	ev = event_new("agent_end");
	jsonx_set_str(ev, "sessionId", L.session);
	jsonx_set_int(ev, "totalTurns", 0);
	jsonx_set_int(ev, "totalTokens", 0);
	jsonx_set_int(ev, "durationMs", 0);
	jsonx_set_str(ev, "terminationReason", "error");
	jsonx_set(ev, "cost", json_object_new_double(0));
	jsonx_set_int(ev, "exitCode", code);
	loop_emit(ev);
	return code;
}

/* Which session: -s, -c (the newest of the workspace), or a new one. */
static int
open_session(void)
{
	const char *show[] = { "--json", "show", L.o.session, NULL };
	const char *ls[] = { "--json", "ls", "--cwd", L.workspace, NULL };
	const char *new[] = { "new", "--cwd", L.workspace, NULL, NULL, NULL };
	struct json_object *o;
	char *line = NULL;
	int code = 0;

	if (L.o.session != NULL || L.o.cont) {
		line = sess_line(L.o.session ? show : ls, &code);
		o = line ? jsonx_parse(line, strlen(line), NULL) : NULL;
		if (jsonx_str(o, "id") != NULL) {
			(void)snprintf(L.session, sizeof(L.session), "%s",
			    jsonx_str(o, "id"));
			(void)snprintf(L.resumed, sizeof(L.resumed), "%s",
			    L.session);
		}
		json_object_put(o);
		free(line);
		if (*L.session)
			return 0;
		if (L.o.session != NULL)
			return setup_fail(code ? code : PI_EXIT_INPUT,
			    "no session '%s'", L.o.session);
	}
	if (L.o.parent != NULL) {
		new[3] = "--parent";
		new[4] = L.o.parent;
	}
	if ((line = sess_line(new, &code)) == NULL)
		return setup_fail(code ? code : PI_EXIT_FAIL, "cannot make a "
		    "session (pi-sess new: exit %d)", code);
	(void)snprintf(L.session, sizeof(L.session), "%s", line);
	free(line);
	return 0;
}

static int
lock(const char *verb)
{
	const char *args[] = { verb, "--pid", NULL, L.session, NULL };
	char pid[32];
	struct pi_error e;

	(void)snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	args[2] = pid;
	return sess_run(args, NULL, NULL, &e);
}

static int
stopped_short(struct json_object *m)
{
	const char *s = jsonx_str(m, "stopReason");

	return s != NULL && (strcmp(s, "error") == 0 ||
	    strcmp(s, "aborted") == 0);
}

static void
print_answer(void)
{
	struct json_object *c = jsonx_arr(L.last_assistant, "content"), *b;
	size_t i;
	int first = 1;

	for (i = 0; c != NULL && i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if (jsonx_str(b, "type") && strcmp(jsonx_str(b, "type"),
		    "text") == 0 && jsonx_str(b, "text")) {
			printf("%s%s", first ? "" : "\n", jsonx_str(b, "text"));
			first = 0;
		}
	}
	if (!first)
		putchar('\n');
}

enum {
	OPT_NEW = 256, OPT_NO_SESSION, OPT_PARENT, OPT_API, OPT_BASE_URL, OPT_NETWORK,
	OPT_TOOLS, OPT_DENY, OPT_TOOL_DIR, OPT_POLICY, OPT_MAX_TURNS, OPT_TIMEOUT,
	OPT_IDLE, OPT_GRACE, OPT_MAX_COST, OPT_PARALLEL, OPT_SYSTEM, OPT_APPEND, OPT_RPC,
	OPT_VERBOSE, OPT_WINDOW, OPT_RESERVE, OPT_KEEP, OPT_DEGRADED,
	OPT_ALLOW_READ, OPT_DB_IN_WS
};

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "new", no_argument, NULL, OPT_NEW },
	{ "no-session", no_argument, NULL, OPT_NO_SESSION },
	{ "parent", required_argument, NULL, OPT_PARENT },
	{ "api", required_argument, NULL, OPT_API },
	{ "base-url", required_argument, NULL, OPT_BASE_URL },
	{ "network", no_argument, NULL, OPT_NETWORK },
	{ "tools", required_argument, NULL, OPT_TOOLS },
	{ "deny-tools", required_argument, NULL, OPT_DENY },
	{ "tool-dir", required_argument, NULL, OPT_TOOL_DIR },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "max-turns", required_argument, NULL, OPT_MAX_TURNS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "max-cost", required_argument, NULL, OPT_MAX_COST },
	{ "parallel", required_argument, NULL, OPT_PARALLEL },
	{ "system", required_argument, NULL, OPT_SYSTEM },
	{ "append-system", required_argument, NULL, OPT_APPEND },
	{ "rpc", no_argument, NULL, OPT_RPC },
	{ "verbose-context", no_argument, NULL, OPT_VERBOSE },
	{ "context-window", required_argument, NULL, OPT_WINDOW },
	{ "reserve", required_argument, NULL, OPT_RESERVE },
	{ "keep-recent", required_argument, NULL, OPT_KEEP },
	{ "allow-degraded", no_argument, NULL, OPT_DEGRADED },
	{ "allow-read", required_argument, NULL, OPT_ALLOW_READ },
	{ "allow-db-in-workspace", no_argument, NULL, OPT_DB_IN_WS },
	{ NULL, 0, NULL, 0 }
};

static void
options(int argc, char **argv)
{
	struct opts *o = &L.o;
	char *end;
	int c, sessions = 0;

	o->max_turns = 0;
	o->parallel = 4;
	o->timeout_ms = 48LL * 3600 * 1000;
	o->idle_ms = 120000;
	o->grace_ms = 5000;
	o->max_cost = -1;
	o->reserve = 16384;
	o->keep_recent = 20000;
	while ((c = getopt_long(argc, argv, "cd:hm:ps:t:Vw:", longopts,
	    NULL)) != -1)
		switch (c) {
		case 'c': o->cont = 1; sessions++; break;
		case 'd': o->db = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			exit(fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL);
		case 'm': o->model = optarg; break;
		case 'p': o->print = 1; break;
		case 's': o->session = optarg; sessions++; break;
		case 't': o->thinking = optarg; break;
		case 'V':
			puts("pi-loop " PI_VERSION);
			exit(fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL);
		case 'w': o->workspace = optarg; break;
		case OPT_NEW: o->new_session = 1; sessions++; break;
		case OPT_NO_SESSION: o->no_session = 1; sessions++; break;
		case OPT_PARENT: o->parent = optarg; break;
		case OPT_API: o->api = optarg; break;
		case OPT_BASE_URL: o->base_url = optarg; break;
		case OPT_NETWORK: o->network = 1; break;
		case OPT_TOOLS: o->tools = optarg; break;
		case OPT_DENY: o->deny_tools = optarg; break;
		case OPT_TOOL_DIR: o->tool_dir = optarg; break;
		case OPT_POLICY: o->policy = optarg; break;
		case OPT_MAX_TURNS:
			o->max_turns = count("--max-turns", optarg, 1);
			break;
		case OPT_TIMEOUT:
			o->timeout_ms = duration("--timeout", optarg);
			break;
		case OPT_IDLE:
			o->idle_ms = duration("--idle-timeout", optarg);
			break;
		case OPT_GRACE:
			o->grace_ms = duration("--grace", optarg);
			break;
		case OPT_MAX_COST:
			errno = 0;
			o->max_cost = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    o->max_cost < 0)
				usage_err("--max-cost: '%s' is not an amount "
				    "of dollars", optarg);
			break;
		case OPT_PARALLEL:
			o->parallel = count("--parallel", optarg, 1);
			break;
		case OPT_SYSTEM:
			free(o->system);
			o->system = text_arg(optarg, "--system");
			break;
		case OPT_APPEND:
			free(o->append_system);
			o->append_system = text_arg(optarg,
			    "--append-system");
			break;
		case OPT_RPC: o->rpc = 1; break;
		case OPT_VERBOSE: o->verbose_context = 1; break;
		case OPT_WINDOW:
			o->context_window = count("--context-window", optarg,
			    1);
			break;
		case OPT_RESERVE:
			o->reserve = count("--reserve", optarg, 0);
			break;
		case OPT_KEEP:
			o->keep_recent = count("--keep-recent", optarg, 1);
			break;
		case OPT_DEGRADED: o->allow_degraded = 1; break;
		case OPT_ALLOW_READ: strv_push(&o->allow_read, optarg); break;
		case OPT_DB_IN_WS: o->db_in_workspace = 1; break;
		default:
			usage();
		}
	if (sessions > 1)
		usage_err("-s, -c, --new and --no-session exclude each other");
	if (o->parent != NULL && (o->session != NULL || o->cont))
		usage_err("--parent starts a new session: not with -s or -c");
	if (o->rpc && o->print)
		usage_err("--rpc and -p exclude each other");
	if (o->rpc && optind < argc)
		usage_err("--rpc takes its prompts on stdin, not as "
		    "arguments");
	if (o->thinking != NULL && strcmp(o->thinking, "off") != 0 &&
	    strcmp(o->thinking, "none") != 0 && strcmp(o->thinking,
	    "low") != 0 && strcmp(o->thinking, "medium") != 0 &&
	    strcmp(o->thinking, "high") != 0)
		usage_err("-t: '%s' is not a thinking level (off, low, "
		    "medium, high)", o->thinking);
}

/* The prompt: the arguments, else stdin when it is not a terminal. */
static char *
prompt_text(int argc, char **argv)
{
	struct buf b;
	int i;

	if (argc > 0) {
		buf_init(&b, (size_t)-1);
		for (i = 0; i < argc; i++)
			(void)buf_addf(&b, "%s%s", i ? " " : "", argv[i]);
		return buf_detach(&b, NULL);
	}
	if (!L.o.rpc && !isatty(0))
		return read_stdin();
	return NULL;
}

/*
 * The database of the run, found as pi-sess finds it; refused inside
 * the workspace, where every tool could read and rewrite it, unless
 * asked for.  Nothing is made before this.
 */
static int
check_db(void)
{
	char *db = L.db ? xstrdup(L.db) : place_sessions_db();

	L.dbpath = place_resolve(db);
	free(db);
	if (L.tmpdir == NULL && !L.o.db_in_workspace &&
	    place_holds(L.workspace, L.dbpath)) {
		fprintf(stderr, "pi-loop: the sessions database '%s' is inside "
		    "the workspace '%s', where every tool could read and "
		    "rewrite it: give -d a path outside it, or "
		    "--allow-db-in-workspace\n", L.dbpath, L.workspace);
		return PI_EXIT_USAGE;
	}
	return 0;
}

static int
setup(void)
{
	const char *rm[] = { "rm", L.session, NULL };
	struct child *list;
	char path[PATH_MAX];
	struct pi_error e, e2;
	const char *tmp = getenv("TMPDIR");
	int code;

	if (realpath(L.o.workspace ? L.o.workspace : ".", path) == NULL) {
		fprintf(stderr, "pi-loop: -w %s: %s\n", L.o.workspace ?
		    L.o.workspace : ".", strerror(errno));
		return PI_EXIT_USAGE;
	}
	L.workspace = xstrdup(path);
	if (L.o.no_session) {
		L.tmpdir = xasprintf("%s/pi-loop.XXXXXX", tmp && *tmp ? tmp :
		    "/tmp");
		if (mkdtemp(L.tmpdir) == NULL) {
			free(L.tmpdir);
			L.tmpdir = NULL;
			return setup_fail(PI_EXIT_FAIL, "mkdtemp: %s",
			    strerror(errno));
		}
		L.db = xasprintf("%s/sessions.db", L.tmpdir);
	} else if (L.o.db != NULL)
		L.db = xstrdup(L.o.db);
	if ((code = check_db()) != 0)
		return code;
	/* The tool list is made while the session is opened. */
	if ((list = tools_list_start(&e)) == NULL)
		return setup_fail(e.status, "%s", e.msg);
	code = open_session();
	if (tools_build(list, &e) == -1) {
		/* A failed open_session has said so, agent_end and all. */
		if (code != 0)
			return code;
		/* The session made for this run goes with it. */
		if (*L.resumed == '\0' && L.tmpdir == NULL)
			(void)sess_run(rm, NULL, NULL, &e2);
		/* A tool named that is no tool is a usage error, like others. */
		if (e.status == PI_EXIT_USAGE) {
			fprintf(stderr, "pi-loop: %s\n", e.msg);
			return PI_EXIT_USAGE;
		}
		return setup_fail(e.status, "%s", e.msg);
	}
	if (code != 0)
		return code;
	/* A temporary database is ours alone: nothing to lock. */
	if (L.tmpdir == NULL && (code = lock("lock")) != 0)
		return setup_fail(code == -1 ? PI_EXIT_FAIL : code, "session "
		    "'%s' is in use by another run (pi-sess lock: exit %d)",
		    L.session, code);
	L.locked = L.tmpdir == NULL;
	L.system = system_prompt();
	if (recorder_start(&e) == -1)
		return setup_fail(e.status, "%s", e.msg);
	return 0;
}

static void
teardown(void)
{
	struct child *c;

	recorder_stop();
	for (c = L.children; c != NULL; c = L.children) {
		proc_kill(&c->p, SIGKILL);
		child_free(c);
	}
	if (L.locked)
		(void)lock("unlock");
	/* The temporary database, its WAL files and its full outputs. */
	if (L.tmpdir != NULL)
		rmtree_at(AT_FDCWD, L.tmpdir);
}

int
main(int argc, char **argv)
{
	struct json_object *prompts = NULL;
	char *text;
	int code;

	pi_check_fds();
	pi_unblock_signals();
	options(argc, argv);
	argc -= optind;
	argv += optind;
	signals();
	stage_dir();
	if (L.o.model != NULL)
		L.model = xstrdup(L.o.model);
	if (L.o.thinking != NULL && strcmp(L.o.thinking, "off") != 0 &&
	    strcmp(L.o.thinking, "none") != 0)
		L.thinking = xstrdup(L.o.thinking);
	text = prompt_text(argc, argv);
	if (!L.o.rpc && (text == NULL || *text == '\0') &&
	    L.o.session == NULL && !L.o.cont)
		usage_err("no prompt: give it as arguments or on stdin");
	if ((code = setup()) != 0) {
		free(text);
		teardown();
		return code;
	}
	if (L.o.rpc)
		code = rpc_main();
	else {
		prompts = json_object_new_array();
		if (text != NULL && *text != '\0')
			json_object_array_add(prompts, user_message(text));
		code = run_agent(prompts);
		json_object_put(prompts);
	}
	free(text);
	free(L.o.system);
	free(L.o.append_system);
	teardown();
	/* The answer, when there is one: not the text of a failed call. */
	if (L.o.print && L.last_assistant != NULL && code != PI_EXIT_PIPE &&
	    !stopped_short(L.last_assistant))
		print_answer();
	if (fflush(stdout) != 0 && code == 0)
		code = errno == EPIPE ? PI_EXIT_PIPE : PI_EXIT_FAIL;
	return code;
}
