/*
 * pi-llm: stream one model call as NDJSON events.
 *
 * Reads a context stream on stdin (when it is not a terminal) and prompt
 * words from the command line, sends them to one provider, and writes
 * message_start, deltas and message_end to stdout, each line flushed the
 * moment it is complete.  It always ends with message_end or an error
 * event, and its exit status says how the call went (DESIGN.md 7).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/buf.h"
#include "core/context.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "llm/catalog.h"
#include "llm/config.h"
#include "llm/curlfn.h"
#include "llm/llm.h"
#include "llm/provider.h"
#include "llm/record.h"
#include "llm/reply.h"
#include "core/banned.h"

static volatile sig_atomic_t got_signal;

static const char *mflag, *pflag, *aflag, *uflag, *sflag, *fflag;
static const char *record_flag, *replay_flag;
static int replay_clock_flag, replay_loose_flag;
static struct recording rec;
static enum thinking tflag = THINK_OFF;
static long idle_flag = 120, retries_flag = 3, max_tokens_flag;
static int list_models_flag;
static struct catalog catalog;
static struct config cfg;

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
	    "              [--replay-loose]] [prompt ...]\n"
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
	got_signal = sig;
}

static int
emit(void *arg, struct json_object *ev)
{
	(void)arg;
	return ndjson_write(1, ev);
}

/* Report a failure on stderr and, in band, as the stream's last line. */
static int
fail(const struct pi_error *e, const char *message_id)
{
	struct json_object *ev;

	if (e->status == PI_EXIT_PIPE)
		return PI_EXIT_PIPE;
	fprintf(stderr, "pi-llm: %s\n", e->msg);
	ev = event_new("error");
	jsonx_set_str(ev, "code", e->code ? e->code : "error");
	jsonx_set_str(ev, "message", e->msg);
	jsonx_set_bool(ev, "recoverable", pi_is_temporary(e));
	jsonx_set_int(ev, "exitCode", e->status);
	if (message_id != NULL)
		jsonx_set_str(ev, "messageId", message_id);
	if (ndjson_write(1, ev) == -1 && errno == EPIPE) {
		json_object_put(ev);
		return PI_EXIT_PIPE;
	}
	json_object_put(ev);
	return e->status;
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
	size_t i, n = json_object_array_length(catalog.models);
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		m = json_object_array_get_idx(catalog.models, i);
		if (!catalog_matches(m, pattern))
			continue;
		o = event_new("model");
		json_object_object_foreach(m, key, val)
			jsonx_set(o, key, jsonx_ref(val));
		/* The API the model is called through, from its provider. */
		if (jsonx_get(m, "api") == NULL &&
		    (p = config_provider(&cfg, jsonx_str(m, "provider"))) != NULL)
			jsonx_set_str(o, "api", p->api);
		rc = ndjson_write(1, o);
		json_object_put(o);
	}
	return rc == 0 ? 0 : PI_EXIT_PIPE;
}

static int fail(const struct pi_error *e, const char *message_id);

static _Noreturn void
unknown_provider(const char *name)
{
	struct pi_error e;

	pi_err(&e, PI_EXIT_CONFIG, "unknown_provider", "unknown provider "
	    "'%s' (see --list-providers)", name);
	exit(fail(&e, NULL));
}

/*
 * -m [provider/]model and --provider name -> a provider row and a model.
 * A model may hold slashes of its own (openrouter/meta-llama/llama-3):
 * only a known provider name before the first one is taken off.
 */
static const struct provider *
resolve(const char **model)
{
	const struct provider *p = NULL;
	const char *m = mflag ? mflag : getenv("PI_MODEL"), *slash;
	char name[64];
	size_t k;

	if (m != NULL && (slash = strchr(m, '/')) != NULL &&
	    (k = (size_t)(slash - m)) < sizeof(name)) {
		memcpy(name, m, k);
		name[k] = '\0';
		if ((p = config_provider(&cfg, name)) != NULL &&
		    (pflag == NULL || strcmp(pflag, name) == 0))
			m = slash + 1;
		else
			p = NULL;
	}
	if (pflag != NULL && (p = config_provider(&cfg, pflag)) == NULL)
		unknown_provider(pflag);
	if ((m == NULL || *m == '\0') && p != NULL &&
	    strcmp(p->api, "faux") == 0)
		m = "faux";
	if (m == NULL || *m == '\0') {
		fprintf(stderr, "pi-llm: no model: give -m [provider/]model "
		    "or set PI_MODEL\n");
		exit(PI_EXIT_USAGE);
	}
	if (p == NULL && (p = config_provider(&cfg, provider_guess(m))) == NULL)
		unknown_provider(provider_guess(m));
	if (aflag != NULL && strcmp(aflag, "faux") != 0 &&
	    api_find(aflag) == NULL) {
		fprintf(stderr, "pi-llm: unknown API '%s' (known: %s)\n",
		    aflag, api_names());
		exit(PI_EXIT_USAGE);
	}
	*model = m;
	return p;
}

/* --api, else the model's own (models.json), else its provider's. */
static const char *
api_of(const struct provider *p, const char *model)
{
	struct json_object *info = catalog_find(&catalog, p->name, model);

	if (aflag != NULL)
		return aflag;
	if (info != NULL && jsonx_str(info, "api") != NULL)
		return jsonx_str(info, "api");
	return p->api;
}

/*
 * --record writes the provider's answers to a file; --replay plays them
 * instead of the network, under the recorded message id and start time,
 * so the events come out the same.
 */
static int
open_recording(const struct provider *p, const char *model, struct reply *r,
    struct pi_error *e)
{
	struct json_object *h;

	if ((record_flag || replay_flag) &&
	    strcmp(api_of(p, model), "faux") == 0)
		return pi_err(e, PI_EXIT_USAGE, "usage", "the faux provider "
		    "makes no requests to record or replay");
	if (record_flag)
		return record_create(&rec, record_flag, e);
	if (replay_flag == NULL)
		return 0;
	if (record_open(&rec, replay_flag, e) == -1)
		return -1;
	h = record_header(&rec);
	if (jsonx_str(h, "messageId") != NULL)
		snprintf(r->message_id, sizeof(r->message_id), "%s",
		    jsonx_str(h, "messageId"));
	r->timestamp = jsonx_int(h, "timestamp", r->timestamp);
	if (replay_clock_flag) {
		rec.clock = 1;
		event_clock_set(r->timestamp);
	}
	return 0;
}

static int
call(const struct provider *p, const char *model, struct context *ctx,
    struct reply *r, struct pi_error *e)
{
	struct llm_call c;
	struct llm_opts o;
	const struct api *api;
	struct json_object *info;
	char *base, *key = NULL;
	size_t n;
	int rc = -1;

	if (strcmp(api_of(p, model), "faux") == 0) {
		const char *script = fflag ? fflag : getenv("PI_FAUX_SCRIPT");

		if (script == NULL)
			return pi_err(e, PI_EXIT_CONFIG, "faux_script",
			    "the faux provider needs --faux-script or "
			    "PI_FAUX_SCRIPT");
		return faux_run(script, ctx, &got_signal, r, e);
	}
	api = api_find(api_of(p, model));
	memset(&c, 0, sizeof(c));
	base = xstrdup(uflag ? uflag : p->base_url);
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		base[--n] = '\0';
	if (config_key(&cfg, p, &key, e) == -1)
		goto out;
	/* A server of one's own (--base-url) may want no key at all. */
	if (key == NULL && p->key_env != NULL && uflag == NULL &&
	    replay_flag == NULL) {
		pi_err(e, PI_EXIT_CONFIG, "no_api_key", "no API key for "
		    "provider '%s': set %s or PI_API_KEY, or put one in %s",
		    p->name, p->key_env, cfg.auth_path);
		goto out;
	}
	if (config_headers(&cfg, p, model, key, &c.headers, e) == -1)
		goto out;
	c.provider = p->name;
	c.api = api->name;
	c.base_url = base;
	c.model = model;
	c.api_key = key;
	c.compat = p->compat;
	c.system = ctx->system;
	c.messages = context_prepare(ctx, p->name, api->name, model,
	    api->id_max);
	c.tools = ctx->tools;
	c.thinking = tflag;
	c.max_tokens = max_tokens_flag;
	if ((info = catalog_find(&catalog, p->name, model)) != NULL)
		c.model_max_tokens = (long)jsonx_int(info, "maxTokens", 0);
	memset(&o, 0, sizeof(o));
	o.max_retries = (int)retries_flag;
	o.idle_ms = idle_flag * 1000;
	o.connect_timeout_ms = 30000;
	o.backoff_ms = 500;
	o.abort = &got_signal;
	if (record_flag || replay_flag)
		o.rec = &rec;
	o.replay_loose = replay_loose_flag;
	rc = llm_stream(api, &c, &o, r, e);
	json_object_put(c.messages);
out:
	json_object_put(c.headers);
	free(key);
	free(base);
	return rc;
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
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "hm:s:t:V", longopts, NULL)) != -1)
		switch (c) {
		case 'A': aflag = optarg; break;
		case 'C': replay_clock_flag = 1; break;
		case 'h': usage_to(stdout, 0);
		case 'F': fflag = optarg; break;
		case 'I':
			if (pi_parse_long(optarg, 1, 86400, &idle_flag) == -1)
				usage();
			break;
		case 'L': exit(list_providers());
		case 'm': mflag = optarg; break;
		case 'O': record_flag = optarg; break;
		case 'M': list_models_flag = 1; break;
		case 'P': pflag = optarg; break;
		case 'R':
			if (pi_parse_long(optarg, 0, 100, &retries_flag) == -1)
				usage();
			break;
		case 's': sflag = optarg; break;
		case 't':
			if (thinking_parse(optarg, &tflag) == -1)
				usage();
			break;
		case 'T':
			if (pi_parse_long(optarg, 1, 10000000,
			    &max_tokens_flag) == -1)
				usage();
			break;
		case 'U': uflag = optarg; break;
		case 'X': replay_loose_flag = 1; break;
		case 'Y': replay_flag = optarg; break;
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

int
main(int argc, char **argv)
{
	const struct provider *p;
	struct json_object *info;
	const char *model;
	struct context ctx;
	struct pi_error e;
	struct reply r;
	struct sigaction sa;
	char *text;
	int status = 0;

	pi_check_fds();
	pi_unblock_signals();
	parse_flags(argc, argv);
	argc -= optind;
	argv += optind;
	if ((record_flag && replay_flag) || ((replay_clock_flag ||
	    replay_loose_flag) && !replay_flag))
		usage();
	if (catalog_init(&catalog, &e) == -1)
		errx_status(&e);
	if (config_load(&cfg, &catalog, &e) == -1)
		exit(fail(&e, NULL));
	if (list_models_flag) {
		if (argc > 1)
			usage();
		status = list_models(argc ? argv[0] : NULL);
		catalog_release(&catalog);
		return status;
	}
	p = resolve(&model);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* No SA_RESTART: a signal must cut short the poll we wait in. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	context_init(&ctx);
	memset(&e, 0, sizeof(e));
	if (!isatty(0) &&
	    context_read_fd(&ctx, 0, "stdin", &got_signal, &e) == -1) {
		/* Interrupted before any call: nothing to report in band. */
		status = e.code && strcmp(e.code, "aborted") == 0 ? e.status :
		    fail(&e, NULL);
		goto out;
	}
	if (argc > 0) {
		text = join(argv, argc);
		context_add_user_text(&ctx, text);
		free(text);
	} else if (isatty(0))
		usage();
	if (sflag != NULL) {
		free(ctx.system);
		ctx.system = sflag[0] == '@' ? read_file(sflag + 1, &e) :
		    xstrdup(sflag);
		if (ctx.system == NULL) {
			status = fail(&e, NULL);
			goto out;
		}
	}
	if (json_object_array_length(ctx.messages) == 0) {
		pi_err(&e, PI_EXIT_INPUT, "bad_input", "nothing to send: no "
		    "prompt and no messages on stdin");
		status = fail(&e, NULL);
		goto out;
	}

	reply_init(&r, p->name, api_of(p, model), model, emit, NULL);
	/* libcurl only for a call that goes out: see curlfn.h. */
	if (strcmp(api_of(p, model), "faux") != 0 && replay_flag == NULL &&
	    curlfn_load(&e) == -1) {
		status = fail(&e, NULL);
		goto done;
	}
	if ((info = catalog_find(&catalog, p->name, model)) != NULL) {
		catalog_price(info, &r.price);
		r.context_window = jsonx_int(info, "contextWindow", 0);
	}
	if (open_recording(p, model, &r, &e) == -1) {
		status = fail(&e, NULL);
		goto done;
	}
	/* Until the provider counts, four bytes of context make a token. */
	r.input_estimate = (int64_t)(strlen(jsonx_string(ctx.messages, NULL)) +
	    (ctx.system ? strlen(ctx.system) : 0)) / 4;
	if (call(p, model, &ctx, &r, &e) == -1) {
		if (e.status == PI_EXIT_SIGINT || e.status == PI_EXIT_SIGTERM) {
			/* Stopped, not failed: the partial message stands. */
			if (reply_fail(&r, STOP_ABORTED, e.msg, &e) == -1)
				status = PI_EXIT_PIPE;
			else
				status = got_signal == SIGINT ?
				    PI_EXIT_SIGINT : PI_EXIT_SIGTERM;
		} else {
			struct pi_error e2 = e;

			if (reply_fail(&r, STOP_ERROR, e.msg, &e2) == -1)
				status = PI_EXIT_PIPE;
			else
				status = fail(&e, r.started ? r.message_id :
				    NULL);
		}
	}
done:
	record_close(&rec);
	reply_release(&r);
	curlfn_unload();
out:
	context_release(&ctx);
	catalog_release(&catalog);
	config_release(&cfg);
	return status;
}
