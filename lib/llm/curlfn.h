/*
 * curlfn: libcurl, loaded when the first request is made.
 *
 * libcurl brings some thirty shared libraries (TLS, GSSAPI, LDAP, SSH,
 * ...) whose loading costs every start of pi-llm about 3.5 ms, more than
 * the rest of pi-llm's start together.  Runs that make no request (the
 * faux provider, a replay, --list-models, --version) need none of it, and
 * pi-loop starts pi-llm once a turn.  So pi-llm is not linked with
 * libcurl; curlfn_load opens libcurl.so.4 with dlopen(3) the first time
 * it is called, calls curl_global_init, and fills curlfn with the
 * functions http.c uses.  It returns 0, or -1 with e filled (code
 * "no_curl", PI_EXIT_CONFIG) when the library cannot be had.
 * curlfn_unload undoes it at exit.
 */
#ifndef PI_CURLFN_H
#define PI_CURLFN_H

#include <time.h>

#include <curl/curl.h>

struct pi_error;

struct curlfn {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int,
	    int, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
	time_t (*getdate)(const char *, const time_t *);
	curl_version_info_data *(*version_info)(CURLversion);
};

extern struct curlfn curlfn;

int curlfn_load(struct pi_error *e);
void curlfn_unload(void);

#endif
