/*
 * The environment of the stages that need no key.  pi-llm gets
 * pi-loop's own (keys, proxies, certificates, its configuration);
 * pi-sess and pi-tool, and a wrapper in PI_SESS or PI_TOOL, get only
 * what they use, from an allowlist, so that no key, token or password
 * of any provider reaches them, whatever its name (pi-loop(1),
 * ENVIRONMENT).
 */
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "core/banned.h"

extern char **environ;

static const char *const pass[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ",
	"TMPDIR", "TERM", "NO_COLOR", "PI_HOME", "PI_SESSIONS_DB",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "PI_CLOCK_FIXED",
	"SQLITE_TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
};

static int
passes(const char *kv)
{
	size_t i, n;

	if (strncmp(kv, "LC_", 3) == 0)
		return 1;
	for (i = 0; i < sizeof(pass) / sizeof(pass[0]); i++) {
		n = strlen(pass[i]);
		if (strncmp(kv, pass[i], n) == 0 && kv[n] == '=')
			return 1;
	}
	return 0;
}

/* Made once: pi-loop's environment does not change while it runs. */
char **
stage_env(void)
{
	static char **env;
	size_t i, n = 0;

	if (env != NULL)
		return env;
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		n++;
	env = xcalloc(n + 1, sizeof(*env));
	for (i = n = 0; environ != NULL && environ[i] != NULL; i++)
		if (passes(environ[i]))
			env[n++] = environ[i];
	return env;
}
