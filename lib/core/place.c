/* place: see place.h. */
#define _XOPEN_SOURCE 700	/* realpath */
#include "place.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "banned.h"

char *
place_sessions_db(void)
{
	const char *s;

	if ((s = getenv("PI_SESSIONS_DB")) != NULL && *s)
		return xstrdup(s);
	if ((s = getenv("PI_HOME")) != NULL && *s)
		return xasprintf("%s/sessions.db", s);
	if ((s = getenv("XDG_DATA_HOME")) != NULL && *s)
		return xasprintf("%s/pi/sessions.db", s);
	return xasprintf("%s/.local/share/pi/sessions.db",
	    (s = getenv("HOME")) ? s : ".");
}

char *
place_outputs(const char *db, const char *session)
{
	return xasprintf("%s.outputs/%s", db, session);
}

void
place_db_paths(const char *db, struct strv *v)
{
	static const char *const ext[] = {
		"", "-wal", "-shm", "-journal", ".outputs",
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		s = xasprintf("%s%s", db, ext[i]);
		strv_push(v, s);
		free(s);
	}
}

int
place_holds(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return *b == '/';
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

char *
place_resolve(const char *path)
{
	char real[PATH_MAX], cwd[PATH_MAX], *p, *s, *out;

	if (*path == '/')
		p = xstrdup(path);
	else
		p = xasprintf("%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".",
		    path);
	if (realpath(p, real) != NULL) {
		free(p);
		return xstrdup(real);
	}
	for (s = p + strlen(p); s > p; s--) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (realpath(*p ? p : "/", real) != NULL) {
			*s = '/';
			out = xasprintf("%s%s", strcmp(real, "/") == 0 ? "" :
			    real, s);
			free(p);
			return out;
		}
		*s = '/';
	}
	free(p);
	return xstrdup(path);
}
