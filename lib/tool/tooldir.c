/* tooldir: see tooldir.h. */
#include "tooldir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

int
tooldir_valid_name(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= 64 && strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

char *
tooldir_find(const char *dir, const char *name)
{
	struct stat st;
	char *path;

	if (dir == NULL || !tooldir_valid_name(name))
		return NULL;
	path = xasprintf("%s/%s", dir, name);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0)
		return path;
	free(path);
	return NULL;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
tooldir_list(const char *dir, struct strv *names, struct pi_error *e)
{
	struct dirent *de;
	char *path;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return pi_err(e, PI_EXIT_USAGE, "bad_tool_dir",
		    "cannot read tool directory '%s': %s", dir,
		    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if ((path = tooldir_find(dir, de->d_name)) != NULL)
			strv_push(names, de->d_name);
		free(path);
	}
	closedir(d);
	if (names->n > 1)
		qsort(names->v, names->n, sizeof(*names->v), by_name);
	return 0;
}

struct json_object *
tooldir_definition(const char *name, const char *text, size_t len,
    struct pi_error *e)
{
	struct json_object *o, *t, *schema;
	const char *said;

	if ((o = jsonx_parse(text, len, e)) == NULL)
		return NULL;
	schema = jsonx_obj(o, "inputSchema") ? jsonx_obj(o, "inputSchema") :
	    jsonx_obj(o, "parameters");
	said = jsonx_str(o, "name");
	if (!jsonx_is(o, json_type_object) || schema == NULL ||
	    jsonx_str(o, "description") == NULL) {
		json_object_put(o);
		pi_err(e, PI_EXIT_INPUT, "bad_tool", "its --schema answer "
		    "needs \"description\" and an \"inputSchema\" object");
		return NULL;
	}
	if (said != NULL && strcmp(said, name) != 0) {
		pi_err(e, PI_EXIT_INPUT, "bad_tool", "its --schema answer "
		    "names it '%s', not '%s'", said, name);
		json_object_put(o);
		return NULL;
	}
	t = event_new("tool");
	jsonx_set_str(t, "name", name);
	jsonx_set_str(t, "description", jsonx_str(o, "description"));
	jsonx_set(t, "inputSchema", jsonx_ref(schema));
	json_object_put(o);
	return t;
}
