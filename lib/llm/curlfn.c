/* curlfn: see curlfn.h.  Linux and glibc: dlopen is in libc. */
#define _GNU_SOURCE
#include "curlfn.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "core/util.h"
#include "core/banned.h"

struct curlfn curlfn;

static void *lib;
static CURLcode (*global_init)(long);
static void (*global_cleanup)(void);

/* Each function: its name, and where its address goes. */
#define FN(field, name)	{ name, (void **)&curlfn.field }

int
curlfn_load(struct pi_error *e)
{
	static const char *const names[] = { "libcurl.so.4", "libcurl.so" };
	const struct { const char *name; void **where; } fns[] = {
		FN(easy_init, "curl_easy_init"),
		FN(easy_setopt, "curl_easy_setopt"),
		FN(easy_getinfo, "curl_easy_getinfo"),
		FN(easy_cleanup, "curl_easy_cleanup"),
		FN(easy_reset, "curl_easy_reset"),
		FN(easy_strerror, "curl_easy_strerror"),
		FN(slist_append, "curl_slist_append"),
		FN(slist_free_all, "curl_slist_free_all"),
		FN(multi_init, "curl_multi_init"),
		FN(multi_add_handle, "curl_multi_add_handle"),
		FN(multi_remove_handle, "curl_multi_remove_handle"),
		FN(multi_perform, "curl_multi_perform"),
		FN(multi_info_read, "curl_multi_info_read"),
		FN(multi_poll, "curl_multi_poll"),
		FN(multi_cleanup, "curl_multi_cleanup"),
		FN(getdate, "curl_getdate"),
		FN(version_info, "curl_version_info"),
		{ "curl_global_init", (void **)&global_init },
		{ "curl_global_cleanup", (void **)&global_cleanup },
	};
	size_t i;
	const char *why = NULL;

	if (lib != NULL)
		return 0;
	/*
	 * RTLD_LAZY: the libraries that ask for immediate binding (most,
	 * on Debian) still get it, and the others (Kerberos, RTMP, GMP,
	 * ...) are bound as a program linked with libcurl binds them, when
	 * a function is first called, which most never are: 15% of the
	 * load's instructions.
	 */
	for (i = 0; lib == NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if ((lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL)) == NULL)
			why = dlerror();
	if (lib == NULL)
		return pi_err(e, PI_EXIT_CONFIG, "no_curl", "cannot load "
		    "libcurl: %s", why ? why : "not found");
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if ((*fns[i].where = dlsym(lib, fns[i].name)) == NULL) {
			why = dlerror();
			pi_err(e, PI_EXIT_CONFIG, "no_curl", "libcurl has no %s: "
			    "%s", fns[i].name, why ? why : "");
			dlclose(lib);
			lib = NULL;
			return -1;
		}
	if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		dlclose(lib);
		lib = NULL;
		return pi_err(e, PI_EXIT_CONFIG, "no_curl", "curl_global_init "
		    "failed");
	}
	return 0;
}

void
curlfn_unload(void)
{
	if (lib == NULL)
		return;
	global_cleanup();
	/* Not dlclose: libcurl's libraries may have left atexit handlers. */
}
