/* config: see config.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "provider.h"
#include "core/buf.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define CONFIG_MAX_FILE (8u << 20)
#define CONFIG_MAX_VALUE 65536

struct config_provider {
	struct provider p;
	struct json_object *def;	/* its models.json entry, or NULL */
};

static char *
config_dir(void)
{
	const char *s;

	if ((s = getenv("PI_HOME")) != NULL && *s)
		return xstrdup(s);
	if ((s = getenv("XDG_CONFIG_HOME")) != NULL && *s)
		return xasprintf("%s/pi", s);
	return xasprintf("%s/.config/pi", (s = getenv("HOME")) ? s : ".");
}

static const char *
file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "not a regular file";
}

/*
 * A config file's text in b: 0, 1 when there is none, or -1 with e
 * filled.  It is opened without blocking and must be a regular file: a
 * FIFO would hang pi-llm until someone wrote to it, a device feed it
 * forever, a directory fail with a puzzling "Is a directory".  A secret
 * file (auth.json) others may read is refused, as its fstat says, so
 * what is checked is what is read.
 */
static int
read_text(const char *path, struct buf *b, int secret, struct pi_error *e)
{
	struct stat st;
	int fd, rc, saved;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return 1;
	if (fd == -1)
		return pi_err(e, PI_EXIT_CONFIG, "bad_config",
		    "cannot read '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) == -1)
		rc = pi_err(e, PI_EXIT_CONFIG, "bad_config",
		    "cannot read '%s': %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = pi_err(e, PI_EXIT_CONFIG, "bad_config", "'%s' is %s; "
		    "pi-llm reads its configuration only from regular files",
		    path, file_kind(st.st_mode));
	else if (secret && (st.st_mode & 077))
		rc = pi_err(e, PI_EXIT_CONFIG, "bad_config", "'%s' may be "
		    "read by others (mode %03o): run chmod 600 on it", path,
		    (unsigned)(st.st_mode & 0777));
	else if ((rc = buf_read_fd(b, fd)) == -1) {
		saved = errno;
		rc = saved == EFBIG ? pi_err(e, PI_EXIT_CONFIG, "bad_config",
		    "'%s' is larger than %u bytes", path, CONFIG_MAX_FILE) :
		    pi_err(e, PI_EXIT_CONFIG, "bad_config",
		    "cannot read '%s': %s", path, strerror(saved));
	}
	close(fd);
	return rc;
}

static size_t
line_at(const char *text, size_t off)
{
	size_t line = 1, i;

	for (i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/*
 * Where a field is written: after its provider's key and, inside a
 * model, after the model's id; else the nearest of those.
 */
static size_t
field_line(const char *text, const char *provider, const char *model,
    const char *field)
{
	char *pk = xasprintf("\"%s\"", provider), *fk, *mk;
	const char *at = strstr(text, pk), *m, *f;

	mk = xasprintf("\"%s\"", model ? model : "");
	if (model != NULL && (m = strstr(at ? at : text, mk)) != NULL)
		at = m;
	fk = xasprintf("\"%s\"", field);
	f = strstr(at ? at : text, fk);
	free(pk);
	free(mk);
	free(fk);
	return line_at(text, f ? (size_t)(f - text) : at ?
	    (size_t)(at - text) : 0);
}

/* A JSON file, or NULL in *out when it does not exist. */
static int
read_json(const char *path, int secret, struct json_object **out,
    struct buf *text, struct pi_error *e)
{
	struct pi_error why;
	size_t where = 0;
	int rc;

	*out = NULL;
	if ((rc = read_text(path, text, secret, e)) != 0)
		return rc == 1 ? 0 : -1;
	if ((*out = jsonx_parse_at(text->data, text->len, &where, &why)) ==
	    NULL)
		return pi_err(e, PI_EXIT_CONFIG, "bad_config", "%s:%zu: %s",
		    path, line_at(text->data, where), why.msg);
	if (!json_object_is_type(*out, json_type_object))
		return pi_err(e, PI_EXIT_CONFIG, "bad_config",
		    "%s:1: not a JSON object", path);
	return 0;
}

struct check {
	const char *path, *text, *provider;
	char where[32];		/* "models[2]." inside a model, else "" */
	const char *model;	/* its id, to find the line */
	struct pi_error *e;
};

static int
bad(struct check *k, const char *field, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	return pi_err(k->e, PI_EXIT_CONFIG, "bad_config", "%s:%zu: "
	    "providers.%s.%s%s: %s", k->path, field_line(k->text, k->provider,
	    k->model, field), k->provider, k->where, field, msg);
}

static int
check_type(struct check *k, struct json_object *o, const char *key,
    enum json_type t, const char *what)
{
	struct json_object *v = jsonx_get(o, key);

	if (v == NULL || json_object_is_type(v, t))
		return 0;
	return bad(k, key, "must be %s", what);
}

static int
check_positive(struct check *k, struct json_object *m, const char *key)
{
	struct json_object *v = jsonx_get(m, key);

	if (v == NULL)
		return 0;
	if ((!jsonx_is(v, json_type_int) && !jsonx_is(v, json_type_double)) ||
	    json_object_get_double(v) <= 0)
		return bad(k, key, "must be a positive number%s", "");
	return 0;
}

static int
check_compat(struct check *k, struct json_object *c)
{
	static const char *const bools[] = { "supportsDeveloperRole",
	    "supportsReasoningEffort", "supportsUsageInStreaming" };
	const char *s;
	size_t i;

	for (i = 0; i < sizeof(bools) / sizeof(*bools); i++)
		if (check_type(k, c, bools[i], json_type_boolean,
		    "true or false") == -1)
			return -1;
	s = jsonx_str(c, "maxTokensField");
	if (jsonx_get(c, "maxTokensField") && (s == NULL ||
	    (strcmp(s, "max_tokens") && strcmp(s, "max_completion_tokens"))))
		return bad(k, "maxTokensField", "must be %s",
		    "\"max_tokens\" or \"max_completion_tokens\"");
	s = jsonx_str(c, "thinkingFormat");
	if (jsonx_get(c, "thinkingFormat") && (s == NULL ||
	    (strcmp(s, "openai") && strcmp(s, "qwen") && strcmp(s, "zai"))))
		return bad(k, "thinkingFormat", "must be %s",
		    "\"openai\", \"qwen\" or \"zai\"");
	return 0;
}

static void
apply_compat(struct compat *c, struct json_object *j)
{
	const char *s;

	if (j == NULL)
		return;
	if (jsonx_get(j, "supportsDeveloperRole"))
		c->developer_role = jsonx_bool(j, "supportsDeveloperRole", 0);
	if (jsonx_get(j, "supportsReasoningEffort"))
		c->no_reasoning_effort = !jsonx_bool(j,
		    "supportsReasoningEffort", 1);
	if (jsonx_get(j, "supportsUsageInStreaming"))
		c->no_stream_usage = !jsonx_bool(j,
		    "supportsUsageInStreaming", 1);
	if ((s = jsonx_str(j, "maxTokensField")) != NULL)
		c->max_tokens_field = strcmp(s, "max_tokens") == 0;
	if ((s = jsonx_str(j, "thinkingFormat")) != NULL)
		c->thinking_format = strcmp(s, "openai") != 0;
}

/* A models.json model as a catalogue entry, defaults filled in. */
static int
add_model(struct check *k, struct catalog *cat, struct json_object *m)
{
	struct json_object *o, *in;

	if (!jsonx_is(m, json_type_object) || jsonx_str(m, "id") == NULL)
		return bad(k, "models", "each model must be an object with a "
		    "string \"id\"%s", "");
	if (check_positive(k, m, "contextWindow") == -1 ||
	    check_positive(k, m, "maxTokens") == -1 ||
	    check_type(k, m, "cost", json_type_object, "an object") == -1 ||
	    check_type(k, m, "headers", json_type_object, "an object") == -1 ||
	    check_type(k, m, "reasoning", json_type_boolean,
	    "true or false") == -1)
		return -1;
	if (jsonx_str(m, "api") && api_find(jsonx_str(m, "api")) == NULL)
		return bad(k, "api", "unknown API '%s'", jsonx_str(m, "api"));
	o = jsonx_copy(m);
	jsonx_set_str(o, "provider", k->provider);
	if (jsonx_get(o, "name") == NULL)
		jsonx_set_str(o, "name", jsonx_str(m, "id"));
	if (jsonx_get(o, "reasoning") == NULL)
		jsonx_set_bool(o, "reasoning", 0);
	if (jsonx_get(o, "input") == NULL) {
		in = json_object_new_array();
		json_object_array_add(in, json_object_new_string("text"));
		jsonx_set(o, "input", in);
	}
	if (jsonx_get(o, "contextWindow") == NULL)
		jsonx_set_int(o, "contextWindow", 128000);
	if (jsonx_get(o, "maxTokens") == NULL)
		jsonx_set_int(o, "maxTokens", 16384);
	catalog_put(cat, o);
	return 0;
}

static int
add_overrides(struct check *k, struct catalog *cat, struct json_object *ov)
{
	struct json_object *m;

	json_object_object_foreach(ov, id, patch) {
		if ((m = catalog_find(cat, k->provider, id)) == NULL)
			return bad(k, "modelOverrides", "no model '%s' to "
			    "override", id);
		if (!jsonx_is(patch, json_type_object))
			return bad(k, "modelOverrides", "'%s' must be an "
			    "object", id);
		json_object_object_foreach(patch, key, val)
			jsonx_set(m, key, jsonx_ref(val));
	}
	return 0;
}

static int
add_provider(struct config *cfg, struct check *k, struct catalog *cat,
    struct json_object *def)
{
	const struct provider *preset = provider_find(k->provider);
	struct config_provider *cp;
	struct json_object *models, *ov;
	const char *api;
	size_t i;

	if (!jsonx_is(def, json_type_object))
		return bad(k, "", "must be an object%s", "");
	if (check_type(k, def, "baseUrl", json_type_string, "a string") ||
	    check_type(k, def, "api", json_type_string, "a string") ||
	    check_type(k, def, "apiKey", json_type_string, "a string") ||
	    check_type(k, def, "headers", json_type_object, "an object") ||
	    check_type(k, def, "compat", json_type_object, "an object") ||
	    check_type(k, def, "models", json_type_array, "an array") ||
	    check_type(k, def, "modelOverrides", json_type_object,
	    "an object") || check_type(k, def, "authHeader",
	    json_type_boolean, "true or false"))
		return -1;
	if ((api = jsonx_str(def, "api")) != NULL && api_find(api) == NULL)
		return bad(k, "api", "unknown API '%s'", api);
	if (preset == NULL && jsonx_str(def, "baseUrl") == NULL)
		return bad(k, "baseUrl", "a new provider needs a baseUrl%s",
		    "");
	if (preset == NULL && api == NULL)
		return bad(k, "api", "a new provider needs an api%s", "");
	if (jsonx_obj(def, "compat") && check_compat(k, jsonx_obj(def,
	    "compat")) == -1)
		return -1;
	cfg->list = xrealloc(cfg->list, (cfg->n + 1) * sizeof(*cfg->list));
	cp = &cfg->list[cfg->n++];
	memset(cp, 0, sizeof(*cp));
	if (preset != NULL)
		cp->p = *preset;
	cp->p.name = k->provider;
	if (api != NULL)
		cp->p.api = api;
	if (jsonx_str(def, "baseUrl") != NULL)
		cp->p.base_url = jsonx_str(def, "baseUrl");
	apply_compat(&cp->p.compat, jsonx_obj(def, "compat"));
	cp->def = def;
	models = jsonx_arr(def, "models");
	for (i = 0; models && i < json_object_array_length(models); i++) {
		snprintf(k->where, sizeof(k->where), "models[%zu].", i);
		k->model = jsonx_str(json_object_array_get_idx(models, i),
		    "id");
		if (add_model(k, cat, json_object_array_get_idx(models, i)))
			return -1;
	}
	k->where[0] = '\0';
	k->model = NULL;
	if ((ov = jsonx_obj(def, "modelOverrides")) != NULL)
		return add_overrides(k, cat, ov);
	return 0;
}

static int
load_models(struct config *cfg, struct catalog *cat, struct pi_error *e)
{
	struct json_object *providers;
	struct check k;
	struct buf text;
	int rc = 0;

	buf_init(&text, CONFIG_MAX_FILE);
	if (read_json(cfg->models_path, 0, &cfg->models, &text, e) == -1) {
		buf_release(&text);
		return -1;
	}
	if (cfg->models == NULL ||
	    (providers = jsonx_get(cfg->models, "providers")) == NULL)
		goto out;
	if (providers != NULL && !jsonx_is(providers, json_type_object)) {
		rc = pi_err(e, PI_EXIT_CONFIG, "bad_config", "%s:%zu: "
		    "providers: must be an object", cfg->models_path,
		    field_line(text.data, "providers", NULL, "providers"));
		goto out;
	}
	k.path = cfg->models_path;
	k.text = text.data;
	k.where[0] = '\0';
	k.model = NULL;
	k.e = e;
	json_object_object_foreach(providers, name, def) {
		k.provider = name;
		if ((rc = add_provider(cfg, &k, cat, def)) == -1)
			break;
	}
out:
	buf_release(&text);
	return rc;
}

/* auth.json holds secrets: a copy others may read is refused. */
static int
load_auth(struct config *cfg, struct pi_error *e)
{
	struct buf text;
	int rc;

	buf_init(&text, CONFIG_MAX_FILE);
	rc = read_json(cfg->auth_path, 1, &cfg->auth, &text, e);
	buf_release(&text);
	return rc;
}

int
config_load(struct config *cfg, struct catalog *cat, struct pi_error *e)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->dir = config_dir();
	cfg->models_path = xasprintf("%s/models.json", cfg->dir);
	cfg->auth_path = xasprintf("%s/auth.json", cfg->dir);
	if (load_models(cfg, cat, e) == -1)
		return -1;
	return load_auth(cfg, e);
}

void
config_release(struct config *cfg)
{
	free(cfg->dir);
	free(cfg->models_path);
	free(cfg->auth_path);
	free(cfg->list);
	json_object_put(cfg->models);
	json_object_put(cfg->auth);
	memset(cfg, 0, sizeof(*cfg));
}

const struct provider *
config_provider(struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n; i++)
		if (strcmp(cfg->list[i].p.name, name) == 0)
			return &cfg->list[i].p;
	return provider_find(name);
}

static struct json_object *
definition(struct config *cfg, const struct provider *p)
{
	size_t i;

	for (i = 0; i < cfg->n; i++)
		if (&cfg->list[i].p == p)
			return cfg->list[i].def;
	return NULL;
}

/* Run "sh -c cmd" and take its output, trimmed, as the value. */
static char *
command_value(const char *cmd, const char *what, struct pi_error *e)
{
	struct buf out;
	char tmp[4096];
	ssize_t n;
	pid_t pid;
	int fd[2], status;

	if (pipe(fd) == -1) {
		pi_err(e, PI_EXIT_CONFIG, "bad_config", "pipe: %s",
		    strerror(errno));
		return NULL;
	}
	if ((pid = fork()) == 0) {
		close(fd[0]);
		if (dup2(fd[1], 1) == -1)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	buf_init(&out, CONFIG_MAX_VALUE);
	while ((n = read(fd[0], tmp, sizeof(tmp))) > 0 ||
	    (n == -1 && errno == EINTR))
		if (n > 0 && buf_add(&out, tmp, (size_t)n) == -1)
			break;
	close(fd[0]);
	while (pid > 0 && waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (pid == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		buf_release(&out);
		/* Never the output: it may be half a secret. */
		pi_err(e, PI_EXIT_CONFIG, "bad_config", "the command that "
		    "gives %s failed", what);
		return NULL;
	}
	while (out.len > 0 && strchr(" \t\r\n", out.data[out.len - 1]))
		out.data[--out.len] = '\0';
	return buf_detach(&out, NULL);
}

char *
config_value(const char *v, const char *what, struct pi_error *e)
{
	const char *env;

	if (v[0] == '!')
		return command_value(v + 1, what, e);
	if ((env = getenv(v)) != NULL && *env)
		return xstrdup(env);
	return xstrdup(v);
}

int
config_key(struct config *cfg, const struct provider *p, char **key,
    struct pi_error *e)
{
	struct json_object *a = jsonx_get(cfg->auth, p->name);
	const char *v;
	char *what;

	*key = NULL;
	if ((v = getenv("PI_API_KEY")) != NULL && *v) {
		*key = xstrdup(v);
		return 0;
	}
	v = jsonx_is(a, json_type_string) ? json_object_get_string(a) :
	    jsonx_str(a, "key");
	if (v == NULL && p->key_env != NULL && getenv(p->key_env) &&
	    *getenv(p->key_env)) {
		*key = xstrdup(getenv(p->key_env));
		return 0;
	}
	if (v == NULL)
		v = jsonx_str(definition(cfg, p), "apiKey");
	if (v == NULL)
		return 0;
	what = xasprintf("the key of provider '%s'", p->name);
	*key = config_value(v, what, e);
	free(what);
	return *key == NULL ? -1 : 0;
}

static int
add_headers(struct json_object *out, struct json_object *h,
    struct pi_error *e)
{
	char *v, *what;

	if (h == NULL)
		return 0;
	json_object_object_foreach(h, name, val) {
		if (!jsonx_is(val, json_type_string))
			continue;
		what = xasprintf("header '%s'", name);
		v = config_value(json_object_get_string(val), what, e);
		free(what);
		if (v == NULL)
			return -1;
		json_object_array_add(out, json_object_new_string(
		    (what = xasprintf("%s: %s", name, v))));
		free(what);
		free(v);
	}
	return 0;
}

int
config_headers(struct config *cfg, const struct provider *p,
    const char *model, const char *key, struct json_object **out,
    struct pi_error *e)
{
	struct json_object *def = definition(cfg, p), *models, *m;
	size_t i, n;
	char *h;

	*out = json_object_new_array();
	if (def == NULL)
		return 0;
	if (add_headers(*out, jsonx_obj(def, "headers"), e) == -1)
		return -1;
	models = jsonx_arr(def, "models");
	n = models ? json_object_array_length(models) : 0;
	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(models, i);
		if (jsonx_str(m, "id") && strcmp(jsonx_str(m, "id"), model) == 0 &&
		    add_headers(*out, jsonx_obj(m, "headers"), e) == -1)
			return -1;
	}
	if (jsonx_bool(def, "authHeader", 0) && key != NULL) {
		json_object_array_add(*out, json_object_new_string(
		    (h = xasprintf("Authorization: Bearer %s", key))));
		free(h);
	}
	return 0;
}
