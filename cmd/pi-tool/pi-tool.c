/*
 * pi-tool: run exactly one tool call in a sandbox and stream its events.
 *
 * Reads one tool call on stdin (pi-llm's toolcall_end event, or
 * {toolCallId, toolName, input}, or pi's toolCall block) and writes
 * tool_execution_start, tool_execution_update as output arrives, and
 * tool_execution_end.  The process that reads the call never runs it:
 * bash, custom tools and the built-in tools alike run in the sandbox of
 * sandbox.h, and this one only reads pipes and writes events.  Its exit
 * status says how the call went (DESIGN.md section 7).
 */
#define _XOPEN_SOURCE 700	/* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "toolrun.h"
#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "sandbox/sandbox.h"
#include "tool/toolcall.h"
#include "tool/tooldir.h"
#include "tool/tools.h"
#include "tool/validate.h"
#include "core/banned.h"

#define MAX_CALL	(64u << 20)

static volatile sig_atomic_t got_signal;

static const char *wflag, *tool_dir_flag, *output_dir_flag;
static struct sandbox_policy policy;
static struct tool_limits limits = { 51200, 2000 };
static char output_why[256];
static struct toolrun_env env = { &policy, &limits, NULL, output_why,
    &got_signal, NULL, NULL };

static const char usage_text[] =
    "usage: pi-tool [-hV] [-w dir] [--allow-degraded] "
    "[--allow-read path]\n"
    "               [--allow-write path] [--deny-read path] "
    "[--grace sec]\n"
    "               [--max-output bytes] [--memory bytes] "
    "[--network | --no-network]\n"
    "               [--output-dir dir] [--processes n] "
    "[--timeout sec] [--tool-dir dir]\n"
    "       pi-tool --list [--tool-dir dir]\n";

static _Noreturn void
usage_to(FILE *f, int status)
{
	fputs(usage_text, f);
	exit(status);
}

static _Noreturn void
usage(void)
{
	usage_to(stderr, PI_EXIT_USAGE);
}

/* A bad option value: say which, then how to call, and exit 2. */
#define errx_usage(...)	pi_usage_err("pi-tool", usage_text, __VA_ARGS__)

static void
on_signal(int sig)
{
	got_signal = sig;
}

/* Only this writes stdout: whole lines, and -1 once the reader left. */
static int
emit(void *arg, struct json_object *ev)
{
	static int gone;

	(void)arg;
	if (!gone && ndjson_write(1, ev) == -1 && errno == EPIPE)
		gone = 1;
	json_object_put(ev);
	return gone ? -1 : 0;
}

static int
fail(const struct pi_error *e, const char *call_id)
{
	struct json_object *ev;

	fprintf(stderr, "pi-tool: %s\n", e->msg);
	ev = event_new("error");
	jsonx_set_str(ev, "code", e->code ? e->code : "error");
	jsonx_set_str(ev, "message", e->msg);
	jsonx_set_bool(ev, "recoverable", pi_is_temporary(e));
	jsonx_set_int(ev, "exitCode", e->status);
	if (call_id != NULL)
		jsonx_set_str(ev, "toolCallId", call_id);
	return emit(NULL, ev) == -1 ? PI_EXIT_PIPE : e->status;
}

static int
read_call(struct toolcall *c, struct pi_error *e)
{
	char chunk[65536];
	struct buf in;
	ssize_t n;
	int rc;

	buf_init(&in, MAX_CALL);
	while ((n = read(0, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR && !got_signal)
			continue;
		if (n == -1 || buf_add(&in, chunk, (size_t)n) == -1) {
			buf_release(&in);
			if (got_signal)
				return pi_err(e, 128 + got_signal, "aborted",
				    "interrupted while reading the call");
			return pi_err(e, PI_EXIT_INPUT, "bad_input", n == -1 ?
			    "stdin: %s" : "stdin: more than 64 MiB%s",
			    n == -1 ? strerror(errno) : "");
		}
	}
	rc = toolcall_parse(c, in.data, in.len, "stdin", e);
	buf_release(&in);
	return rc;
}

static int
ours(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 077) == 0;
}

/*
 * Where full outputs are kept, ours alone: --output-dir (pi-loop gives
 * each session its own), else one directory per workspace, so that no
 * call sees another workspace's outputs.  Shown to the call read-only;
 * what holds the others is hidden.
 */
static char *
output_dir(void)
{
	const char *base = getenv("TMPDIR");
	char *d, *top = NULL, *slash;
	uint64_t h = 14695981039346656037ULL;
	const char *p;

	if (output_dir_flag != NULL) {
		d = xstrdup(output_dir_flag);
		/* Its parent too, ours alone, when it is missing. */
		if ((slash = strrchr(d, '/')) != NULL && slash != d) {
			*slash = '\0';
			(void)mkdir(d, 0700);
			*slash = '/';
		}
	} else {
		/* FNV-1a of the workspace's real path. */
		for (p = policy.workspace; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		top = xasprintf("%s/pi-tool-output.%lu", base && *base == '/' ?
		    base : "/tmp", (unsigned long)getuid());
		d = xasprintf("%s/%016llx", top, (unsigned long long)h);
		(void)mkdir(top, 0700);
		strv_push(&policy.masks, top);
	}
	if (mkdir(d, 0700) == -1 && errno != EEXIST)
		snprintf(output_why, sizeof(output_why), "%s: %s", d,
		    strerror(errno));
	else if (!ours(d) || (top != NULL && !ours(top)))
		snprintf(output_why, sizeof(output_why), "%s is not a "
		    "directory of ours that only we may read", ours(d) ?
		    top : d);
	else {
		free(top);
		return d;
	}
	free(top);
	free(d);
	return NULL;
}

/* A custom tool's definition: its --schema answer, asked in the sandbox. */
static struct json_object *
custom_definition(const char *name, const char *path, struct pi_error *e)
{
	char *argv[] = { (char *)path, (char *)"--schema", NULL };
	long long saved = policy.timeout_ms;
	struct json_object *def = NULL;
	struct buf out;

	buf_init(&out, 1u << 20);
	if (policy.timeout_ms > 10000)
		policy.timeout_ms = 10000;
	if (toolrun_collect(&env, argv, &out, e) == 0)
		def = tooldir_definition(name, out.data, out.len, e);
	policy.timeout_ms = saved;
	buf_release(&out);
	return def;
}

static int
list_tools(void)
{
	const struct tool_def *t;
	struct json_object *ev;
	struct strv names = { NULL, 0 };
	struct pi_error e;
	char *path;
	size_t i, n;
	int status = PI_EXIT_OK;

	t = tools_all(&n);
	for (i = 0; i < n; i++) {
		ev = event_new("tool");
		jsonx_set_str(ev, "name", t[i].name);
		jsonx_set_str(ev, "description", t[i].description);
		jsonx_set(ev, "inputSchema", jsonx_parse(t[i].schema,
		    strlen(t[i].schema), NULL));
		if (emit(NULL, ev) == -1)
			return PI_EXIT_PIPE;
	}
	if (tool_dir_flag == NULL)
		return PI_EXIT_OK;
	if (tooldir_list(tool_dir_flag, &names, &e) == -1)
		return fail(&e, NULL);
	for (i = 0; i < names.n && status != PI_EXIT_PIPE; i++) {
		path = tooldir_find(tool_dir_flag, names.v[i]);
		ev = NULL;
		if (tools_find(names.v[i]) != NULL)
			pi_err(&e, PI_EXIT_INPUT, "bad_tool", "has the name of a "
			    "built-in tool; skipped");
		else if ((ev = custom_definition(names.v[i], path, &e)) != NULL)
			status = emit(NULL, ev) == -1 ? PI_EXIT_PIPE : status;
		free(path);
		if (ev != NULL)
			continue;
		/* A broken tool is named; a broken sandbox ends the list. */
		if (e.status != PI_EXIT_INPUT) {
			status = fail(&e, NULL);
			break;
		}
		fprintf(stderr, "pi-tool: custom tool '%s': %s\n", names.v[i],
		    e.msg);
		status = PI_EXIT_INPUT;
	}
	strv_release(&names);
	return status;
}

/* Find the tool, check the input against its schema, and run it. */
static int
run(struct toolcall *c)
{
	const struct tool_def *builtin;
	struct json_object *schema, *def;
	struct pi_error e;
	struct buf msg;
	char *custom = NULL, *text;
	double t;
	int status;

	if ((builtin = tools_find(c->name)) != NULL) {
		tools_prepare(builtin, c->input);
		schema = jsonx_parse(builtin->schema, strlen(builtin->schema),
		    NULL);
	} else if ((custom = tooldir_find(tool_dir_flag, c->name)) != NULL) {
		if ((def = custom_definition(c->name, custom, &e)) == NULL) {
			free(custom);
			if (e.status != PI_EXIT_INPUT)
				return fail(&e, c->id);
			text = xasprintf("Tool %s is broken: %s", c->name,
			    e.msg);
			status = toolrun_refuse(&env, c, "bad_tool", text);
			free(text);
			return status;
		}
		schema = jsonx_ref(jsonx_obj(def, "inputSchema"));
		json_object_put(def);
	} else {
		text = xasprintf("Tool %s not found", c->name);
		status = toolrun_refuse(&env, c, "unknown_tool", text);
		free(text);
		return status;
	}
	buf_init(&msg, 1u << 20);
	if (validate_input(schema, c->input, c->name, &msg) == -1)
		status = toolrun_refuse(&env, c, "invalid_arguments", msg.data);
	else {
		/* bash's own timeout can only shorten ours. */
		t = jsonx_num(c->input, "timeout", 0);
		if (builtin != NULL && builtin->run == NULL && t > 0 &&
		    t * 1000 < (double)policy.timeout_ms)
			policy.timeout_ms = (long long)(t * 1000 + 0.5);
		status = toolrun_call(&env, c, builtin, custom);
	}
	buf_release(&msg);
	json_object_put(schema);
	free(custom);
	return status;
}

/* An existing path, made absolute and real. */
static void
push_real(struct strv *v, const char *path, const char *what)
{
	char buf[PATH_MAX];

	if (realpath(path, buf) == NULL)
		errx_usage("%s '%s': %s", what, path, strerror(errno));
	if (strcmp(buf, "/") == 0 && v != &policy.allow_read)
		errx_usage("%s: refusing to make / writable", what);
	strv_push(v, buf);
}

static long long
seconds(const char *s, const char *what)
{
	long long ms;

	if (pi_parse_duration(s, 604800, &ms) == -1)
		errx_usage("%s: '%s' is not a duration (seconds, or a number "
		    "with s, m or h) up to a week", what, s);
	return ms;
}

static long long
size(const char *s, const char *what, long long min, long long max)
{
	long long v;

	if (pi_parse_size(s, min, max, &v) == -1)
		errx_usage("%s: '%s' is not a size from %lld to %lld bytes "
		    "(K, M or G may follow)", what, s, min, max);
	return v;
}

static void
options(int argc, char **argv, int *list)
{
	static const struct option longopts[] = {
		{ "allow-degraded", no_argument, NULL, 'D' },
		{ "allow-read", required_argument, NULL, 'R' },
		{ "allow-write", required_argument, NULL, 'W' },
		{ "deny-read", required_argument, NULL, 'X' },
		{ "grace", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, 'l' },
		{ "max-output", required_argument, NULL, 'o' },
		{ "memory", required_argument, NULL, 'm' },
		{ "network", no_argument, NULL, 'n' },
		{ "no-network", no_argument, NULL, 'N' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "processes", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "tool-dir", required_argument, NULL, 'T' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct strv reads = { NULL, 0 };
	char cwd[PATH_MAX], *p;
	size_t i;
	int ch;

	while ((ch = getopt_long(argc, argv, "hVw:", longopts, NULL)) != -1)
		switch (ch) {
		case 'D':
			policy.allow_degraded = 1;
			break;
		case 'R':
			strv_push(&reads, optarg);
			break;
		case 'W':
			push_real(&policy.allow_write, optarg, "--allow-write");
			break;
		case 'X':
			/* Hidden where it is, whatever it is (or will be). */
			p = optarg[0] == '/' ? xstrdup(optarg) : xasprintf(
			    "%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".",
			    optarg);
			strv_push(&policy.masks, p);
			free(p);
			break;
		case 'g':
			policy.grace_ms = seconds(optarg, "--grace");
			break;
		case 'h':
			usage_to(stdout, PI_EXIT_OK);
		case 'l':
			*list = 1;
			break;
		case 'o':
			limits.max_bytes = (size_t)size(optarg, "--max-output",
			    1024, 64LL << 20);
			break;
		case 'm':
			policy.memory_max = size(optarg, "--memory", 16LL << 20,
			    1LL << 50);
			break;
		case 'n':
			policy.network = 1;
			break;
		case 'N':
			policy.network = 0;
			break;
		case 'O':
			output_dir_flag = optarg;
			break;
		case 'p':
			policy.pids_max = (long)size(optarg, "--processes", 1,
			    1 << 22);
			break;
		case 't':
			policy.timeout_ms = seconds(optarg, "--timeout");
			break;
		case 'T':
			tool_dir_flag = optarg;
			break;
		case 'V':
			puts("pi-tool " PI_VERSION);
			exit(PI_EXIT_OK);
		case 'w':
			wflag = optarg;
			break;
		default:
			usage();
		}
	if (optind != argc)
		usage();
	if (wflag == NULL && getcwd(cwd, sizeof(cwd)) == NULL)
		errx_usage("cannot find the current directory: %s",
		    strerror(errno));
	push_real(&policy.allow_write, wflag ? wflag : cwd, "workspace");
	/* The workspace is the last writable path pushed: take it out. */
	policy.workspace = policy.allow_write.v[--policy.allow_write.n];
	policy.allow_write.v[policy.allow_write.n] = NULL;
	/* --allow-read wins over a default mask; --deny-read over both. */
	for (i = 0; i < reads.n; i++) {
		push_real(&policy.allow_read, reads.v[i], "--allow-read");
		sandbox_unmask(&policy, policy.allow_read.v[i]);
	}
	strv_release(&reads);
	if (tool_dir_flag != NULL) {
		push_real(&policy.allow_read, tool_dir_flag, "--tool-dir");
		tool_dir_flag = policy.allow_read.v[policy.allow_read.n - 1];
	}
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	struct toolcall call;
	struct pi_error e;
	sigset_t block;
	int list = 0, status;

	pi_check_fds();
	pi_unblock_signals();
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	policy.timeout_ms = 120000;
	policy.grace_ms = 2000;
	policy.memory_max = 2LL << 30;
	policy.pids_max = 512;
	policy.protect_git = 1;
	sandbox_default_masks(&policy);
	options(argc, argv, &list);
	env.emit = emit;
	/* A --schema run has no output to keep. */
	if (!list && (env.output_dir = output_dir()) != NULL)
		strv_push(&policy.allow_read, env.output_dir);
	/* From here on a signal is taken only where sandbox_run waits. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	memset(&call, 0, sizeof(call));
	if (list) {
		sigprocmask(SIG_BLOCK, &block, NULL);
		status = list_tools();
	} else if (read_call(&call, &e) == -1)
		status = fail(&e, call.id);
	else {
		sigprocmask(SIG_BLOCK, &block, NULL);
		status = run(&call);
	}
	toolcall_release(&call);
	free((char *)policy.workspace);
	free((char *)env.output_dir);
	strv_release(&policy.allow_write);
	strv_release(&policy.allow_read);
	strv_release(&policy.masks);
	return status;
}
