/*
 * pi-llm: stream one model call as NDJSON events.
 *
 * Reads a context stream on stdin (when it is not a terminal) and prompt
 * words from the command line, sends them to one provider, and writes
 * message_start, deltas and message_end to stdout, each line flushed the
 * moment it is complete.  It always ends with message_end or an error
 * event, and its exit status says how the call went (DESIGN.md 7).
 * With --serve it makes one call per call line of its input, each
 * framed by call_end (serve.c), keeping its connections between them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call.h"
#include "serve.h"
#include "core/buf.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "core/banned.h"

static const char *mflag, *pflag, *sflag;
static enum thinking tflag = THINK_OFF;
static long max_tokens_flag;
static int list_models_flag, serve_flag;

static _Noreturn void
usage_to(FILE *f, int status)
{
	fputs("usage: pi-llm [-hV] [-m [provider/]model] [-s text | @file] "
	    "[-t level]\n"
	    "              [--api api] [--base-url url] "
	    "[--faux-script file]\n"
	    "              [--idle-timeout sec] [--max-retries n] "
	    "[--max-tokens n]\n"
	    "              [--provider name] [--record file | --replay file "
	    "[--replay-clock]\n"
	    "              [--replay-loose]] [--serve | prompt ...]\n"
	    "       pi-llm --list-models [pattern]\n"
	    "       pi-llm --list-providers\n", f);
	exit(status);
}

static _Noreturn void
usage(void)
{
	usage_to(stderr, PI_EXIT_USAGE);
}

static void
on_signal(int sig)
{
	S.signal = sig;
}

static char *
read_file(const char *path, struct pi_error *e)
{
	struct buf b;
	char tmp[8192];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		pi_err(e, PI_EXIT_INPUT, "bad_input", "cannot open '%s': %s",
		    path, strerror(errno));
		return NULL;
	}
	buf_init(&b, PI_MAX_LINE);
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		if (buf_add(&b, tmp, (size_t)n) == -1) {
			n = -1;
			errno = EFBIG;
			break;
		}
	close(fd);
	if (n == -1) {
		pi_err(e, PI_EXIT_INPUT, "bad_input", "cannot read '%s': %s",
		    path, strerror(errno));
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

static _Noreturn void
errx_status(const struct pi_error *e)
{
	fprintf(stderr, "pi-llm: %s\n", e->msg);
	exit(e->status);
}

static int
list_providers(void)
{
	const struct provider *p;
	struct json_object *o;
	size_t i, n;
	int rc = 0;

	p = provider_table(&n);
	for (i = 0; i < n && rc == 0; i++) {
		o = event_new("provider");
		jsonx_set_str(o, "name", p[i].name);
		jsonx_set_str(o, "api", p[i].api);
		jsonx_set_str(o, "baseUrl", p[i].base_url);
		if (p[i].key_env != NULL)
			jsonx_set_str(o, "keyEnv", p[i].key_env);
		rc = ndjson_write(1, o);
		json_object_put(o);
	}
	return rc == 0 ? 0 : PI_EXIT_PIPE;
}

static int
list_models(const char *pattern)
{
	const struct provider *p;
	struct json_object *m, *o;
	size_t i, n = json_object_array_length(S.catalog.models);
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		m = json_object_array_get_idx(S.catalog.models, i);
		if (!catalog_matches(m, pattern))
			continue;
		o = event_new("model");
		json_object_object_foreach(m, key, val)
			jsonx_set(o, key, jsonx_ref(val));
		/* The API the model is called through, from its provider. */
		if (jsonx_get(m, "api") == NULL && (p = config_provider(&S.cfg,
		    jsonx_str(m, "provider"))) != NULL)
			jsonx_set_str(o, "api", p->api);
		rc = ndjson_write(1, o);
		json_object_put(o);
	}
	return rc == 0 ? 0 : PI_EXIT_PIPE;
}

static void
parse_flags(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "api", required_argument, NULL, 'A' },
		{ "base-url", required_argument, NULL, 'U' },
		{ "faux-script", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "idle-timeout", required_argument, NULL, 'I' },
		{ "list-models", no_argument, NULL, 'M' },
		{ "list-providers", no_argument, NULL, 'L' },
		{ "max-retries", required_argument, NULL, 'R' },
		{ "max-tokens", required_argument, NULL, 'T' },
		{ "provider", required_argument, NULL, 'P' },
		{ "record", required_argument, NULL, 'O' },
		{ "replay", required_argument, NULL, 'Y' },
		{ "replay-clock", no_argument, NULL, 'C' },
		{ "replay-loose", no_argument, NULL, 'X' },
		{ "serve", no_argument, NULL, 'S' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "hm:s:t:V", longopts, NULL)) != -1)
		switch (c) {
		case 'A': S.api = optarg; break;
		case 'C': S.replay_clock = 1; break;
		case 'h': usage_to(stdout, 0);
		case 'F': S.faux_script = optarg; break;
		case 'I':
			if (pi_parse_long(optarg, 1, 86400, &S.idle) == -1)
				usage();
			break;
		case 'L': exit(list_providers());
		case 'm': mflag = optarg; break;
		case 'O': S.record = optarg; break;
		case 'M': list_models_flag = 1; break;
		case 'P': pflag = optarg; break;
		case 'R':
			if (pi_parse_long(optarg, 0, 100, &S.retries) == -1)
				usage();
			break;
		case 's': sflag = optarg; break;
		case 'S': serve_flag = 1; break;
		case 't':
			if (thinking_parse(optarg, &tflag) == -1)
				usage();
			break;
		case 'T':
			if (pi_parse_long(optarg, 1, 10000000,
			    &max_tokens_flag) == -1)
				usage();
			break;
		case 'U': S.base_url = optarg; break;
		case 'X': S.replay_loose = 1; break;
		case 'Y': S.replay = optarg; break;
		case 'V':
			puts("pi-llm " PI_VERSION);
			exit(0);
		default:
			usage();
		}
}

static char *
join(char **argv, int argc)
{
	struct buf b;
	int i;

	buf_init(&b, PI_MAX_LINE);
	for (i = 0; i < argc; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		buf_adds(&b, argv[i]);
	}
	return buf_detach(&b, NULL);
}

/* Whatever a call may need: the model table, the user's files, -s. */
static void
stage_init(void)
{
	struct pi_error e;

	if (catalog_init(&S.catalog, &e) == -1)
		errx_status(&e);
	if (config_load(&S.cfg, &S.catalog, &e) == -1)
		exit(call_fail(&e, NULL));
	if (S.api != NULL && strcmp(S.api, "faux") != 0 &&
	    api_find(S.api) == NULL) {
		fprintf(stderr, "pi-llm: unknown API '%s' (known: %s)\n",
		    S.api, api_names());
		exit(PI_EXIT_USAGE);
	}
	S.system = sflag == NULL ? NULL : sflag[0] != '@' ? xstrdup(sflag) :
	    read_file(sflag + 1, &e);
	if (sflag != NULL && S.system == NULL)
		exit(call_fail(&e, NULL));
}

int
main(int argc, char **argv)
{
	struct call_opts o;
	struct context ctx;
	struct pi_error e;
	struct sigaction sa;
	char *text;
	int status = 0;

	pi_check_fds();
	pi_unblock_signals();
	S.idle = 120;
	S.retries = 3;
	parse_flags(argc, argv);
	argc -= optind;
	argv += optind;
	if ((S.record && S.replay) || ((S.replay_clock || S.replay_loose) &&
	    !S.replay) || (serve_flag && (argc > 0 || list_models_flag)))
		usage();
	stage_init();
	if (list_models_flag) {
		if (argc > 1)
			usage();
		status = list_models(argc ? argv[0] : NULL);
		stage_release();
		return status;
	}
	memset(&o, 0, sizeof(o));
	o.model = mflag ? mflag : getenv("PI_MODEL");
	o.provider = pflag;
	o.thinking = tflag;
	o.max_tokens = max_tokens_flag;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* No SA_RESTART: a signal must cut short the poll we wait in. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (serve_flag) {
		status = serve(&o);
		stage_release();
		return status;
	}
	context_init(&ctx);
	memset(&e, 0, sizeof(e));
	if (!isatty(0) &&
	    context_read_fd(&ctx, 0, "stdin", &S.signal, &e) == -1) {
		/* Interrupted before any call: nothing to report in band. */
		status = e.code && strcmp(e.code, "aborted") == 0 ? e.status :
		    call_fail(&e, NULL);
		goto out;
	}
	if (argc > 0) {
		text = join(argv, argc);
		context_add_user_text(&ctx, text);
		free(text);
	} else if (isatty(0))
		usage();
	status = run_call(&o, &ctx, &e);
out:
	context_release(&ctx);
	stage_release();
	return status;
}
