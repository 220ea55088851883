/*
 * catalog: what pi knows of each model: context window, output limit,
 * price per million tokens (input, output, cache read, cache write),
 * reasoning, and image input.  The table is share/models.ndjson, one
 * model a line in the shape of pi's models.json plus "provider"; make
 * builds it into the program (lib/models_data.c), so there is no file to
 * find at run time.
 *
 * Models are json-c objects owned by the catalog; lookups borrow them.
 */
#ifndef PI_CATALOG_H
#define PI_CATALOG_H

struct json_object;
struct pi_error;
struct price;

struct catalog {
	struct json_object *models;	/* array */
};

int catalog_init(struct catalog *c, struct pi_error *e);
void catalog_release(struct catalog *c);
struct json_object *catalog_find(const struct catalog *c,
    const char *provider, const char *id);
/* Whether "provider/id" or the name holds pattern (any case). */
int catalog_matches(struct json_object *model, const char *pattern);
void catalog_price(struct json_object *model, struct price *p);
/* Add a model, or replace the one of the same provider and id; takes m. */
void catalog_put(struct catalog *c, struct json_object *m);

#endif
