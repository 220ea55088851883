/* catalog: see catalog.h. */
#include "catalog.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reply.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

extern const char *const catalog_lines[];

int
catalog_init(struct catalog *c, struct pi_error *e)
{
	struct json_object *m;
	size_t i;

	c->models = json_object_new_array();
	for (i = 0; catalog_lines[i] != NULL; i++) {
		if (*catalog_lines[i] == '\0')
			continue;
		if ((m = jsonx_parse(catalog_lines[i], strlen(catalog_lines[i]),
		    e)) == NULL || jsonx_str(m, "provider") == NULL ||
		    jsonx_str(m, "id") == NULL) {
			json_object_put(m);
			return pi_err(e, PI_EXIT_CONFIG, "bad_catalog",
			    "share/models.ndjson:%zu: not a model", i + 1);
		}
		json_object_array_add(c->models, m);
	}
	return 0;
}

void
catalog_release(struct catalog *c)
{
	json_object_put(c->models);
	c->models = NULL;
}

struct json_object *
catalog_find(const struct catalog *c, const char *provider, const char *id)
{
	struct json_object *m;
	size_t i, n = json_object_array_length(c->models);

	for (i = 0; i < n; i++) {
		m = json_object_array_get_idx(c->models, i);
		if (strcmp(jsonx_str(m, "provider"), provider) == 0 &&
		    strcmp(jsonx_str(m, "id"), id) == 0)
			return m;
	}
	return NULL;
}

static int
contains(const char *s, const char *pat)
{
	size_t n = strlen(pat);

	for (; s != NULL && *s; s++)
		if (strncasecmp(s, pat, n) == 0)
			return 1;
	return n == 0;
}

int
catalog_matches(struct json_object *m, const char *pattern)
{
	char *full;
	int hit;

	if (pattern == NULL)
		return 1;
	full = xasprintf("%s/%s", jsonx_str(m, "provider"), jsonx_str(m, "id"));
	hit = contains(full, pattern) || contains(jsonx_str(m, "name"),
	    pattern);
	free(full);
	return hit;
}

void
catalog_price(struct json_object *m, struct price *p)
{
	struct json_object *cost = jsonx_obj(m, "cost");

	memset(p, 0, sizeof(*p));
	if (cost == NULL)
		return;
	p->input = jsonx_num(cost, "input", 0);
	p->output = jsonx_num(cost, "output", 0);
	p->cache_read = jsonx_num(cost, "cacheRead", 0);
	p->cache_write = jsonx_num(cost, "cacheWrite", 0);
	p->known = 1;
}

void
catalog_put(struct catalog *c, struct json_object *m)
{
	struct json_object *old;
	size_t i, n = json_object_array_length(c->models);

	for (i = 0; i < n; i++) {
		old = json_object_array_get_idx(c->models, i);
		if (strcmp(jsonx_str(old, "provider"),
		    jsonx_str(m, "provider")) == 0 &&
		    strcmp(jsonx_str(old, "id"), jsonx_str(m, "id")) == 0) {
			json_object_array_put_idx(c->models, i, m);
			return;
		}
	}
	json_object_array_add(c->models, m);
}
