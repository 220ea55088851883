/*
 * config: the user's own providers, models and keys, from the config
 * directory ($PI_HOME, else $XDG_CONFIG_HOME/pi, else ~/.config/pi).
 *
 * models.json, in pi's format ({"providers":{NAME:{...}}}), adds
 * providers, overrides what it names of a preset (baseUrl, api, apiKey,
 * headers, compat), and adds models to the catalogue.  auth.json holds a
 * key per provider and is refused when group or others may read it.  A
 * key or header value is a literal, the name of an environment variable
 * that is set, or "!command" whose trimmed output is the value.
 *
 * Errors name the file, line and field, with status PI_EXIT_CONFIG.
 * Providers returned are owned by the config.
 */
#ifndef PI_CONFIG_H
#define PI_CONFIG_H

#include <stddef.h>

struct catalog;
struct json_object;
struct pi_error;
struct provider;

struct config_provider;

struct config {
	char *dir;
	char *models_path, *auth_path;
	struct json_object *models;	/* models.json, or NULL */
	struct json_object *auth;	/* auth.json, or NULL */
	struct config_provider *list;
	size_t n;
};

/* Read both files, if present, and add models.json's models to cat. */
int config_load(struct config *cfg, struct catalog *cat, struct pi_error *e);
void config_release(struct config *cfg);
/* A provider by name: models.json's own, a preset with its overrides. */
const struct provider *config_provider(struct config *cfg, const char *name);
/*
 * The key for p: PI_API_KEY, auth.json, the provider's variable, then
 * models.json's apiKey.  *key is NULL when there is none; the caller
 * frees it.
 */
int config_key(struct config *cfg, const struct provider *p, char **key,
    struct pi_error *e);
/* Extra "Name: value" headers for a call (provider's, then model's). */
int config_headers(struct config *cfg, const struct provider *p,
    const char *model, const char *key, struct json_object **out,
    struct pi_error *e);
/* A value as a key or header value is read (see above). */
char *config_value(const char *v, const char *what, struct pi_error *e);

#endif
