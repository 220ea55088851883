/*
 * util: the things every program shares.  Exit codes (DESIGN.md section 7),
 * input ceilings, struct pi_error, the xmalloc family and a monotonic clock.
 *
 * The library never exits or prints; it fills a caller's struct pi_error
 * and returns -1 (or NULL).  The one exception is memory exhaustion: the
 * x* functions print "out of memory" and exit 1, as signify's xmalloc does.
 */
#ifndef PI_UTIL_H
#define PI_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#define PI_VERSION "0.1.0"

/* Exit status, the same for every program. */
enum {
	PI_EXIT_OK = 0,
	PI_EXIT_FAIL = 1,
	PI_EXIT_USAGE = 2,
	PI_EXIT_INPUT = 3,
	PI_EXIT_CONFIG = 4,
	PI_EXIT_REFUSED = 5,
	PI_EXIT_TOOL = 6,
	PI_EXIT_SANDBOX = 7,
	PI_EXIT_MAXTURNS = 8,
	PI_EXIT_BUDGET = 9,
	PI_EXIT_TEMP = 75,
	PI_EXIT_TIMEOUT = 124,
	PI_EXIT_SIGINT = 130,
	PI_EXIT_SIGTERM = 143,
	PI_EXIT_PIPE = 141
};

/* Ceilings on anything fed from outside.  Going over is an error. */
#define PI_MAX_LINE	(64u << 20)	/* one NDJSON line, one SSE line */
#define PI_MAX_EVENT	(64u << 20)	/* one SSE event's data */
#define PI_MAX_ERRBODY	(1u << 20)	/* an HTTP error body we keep */
#define PI_MAX_TEXT	(256u << 20)	/* one content block of a reply */
#define PI_MAX_OUTPUT	(100u << 20)	/* a tool's raw output, all told */
/*
 * One entry of the session store, its data as stored: what every way
 * into the store takes, less the room a line needs around it, so that
 * every line holding it (pi-sess context, log, export) stays within
 * PI_MAX_LINE.
 */
#define PI_MAX_ENTRY	(PI_MAX_LINE - (64u << 10))

/*
 * An error on its way up: a one-line message, the exit status it maps to,
 * and a stable code for the "error" event (a static string).  A status of
 * PI_EXIT_TEMP marks it temporary (worth retrying).
 */
struct pi_error {
	char msg[512];
	const char *code;
	int status;
};

/*
 * Fill e (may be NULL) and return -1, so callers can "return pi_err(...)".
 * The arguments may include e->msg: the message is built in a copy.
 */
int pi_err(struct pi_error *e, int status, const char *code,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int pi_is_temporary(const struct pi_error *e);
/* A bad call: "prog: message", then the usage text, on stderr; exit 2. */
_Noreturn void pi_usage_err(const char *prog, const char *usage,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

long long pi_now_ms(void);	/* wall clock, Unix ms */
long long pi_mono_ms(void);	/* monotonic, for timeouts */
long long pi_mono_us(void);

/* A NULL-terminated vector of strings it owns, for path lists and argv. */
struct strv {
	char **v;	/* v[n] == NULL; NULL while empty */
	size_t n;
};

void strv_push(struct strv *s, const char *str);	/* copies str */
void strv_release(struct strv *s);
/* The vector as execve and friends want it; never NULL. */
const char *const *strv_list(const struct strv *s);

/* A UUIDv7 (time-ordered) as 36 characters plus NUL. */
void pi_uuid7(char out[37]);

/*
 * Standard base64 (RFC 4648, with padding) of n bytes at p, as a
 * NUL-terminated string the caller frees.
 */
char *pi_base64(const void *p, size_t n);

/* Parse a decimal with bounds; 0 on success. */
int pi_parse_long(const char *s, long min, long max, long *out);
/*
 * A duration: seconds, fractions allowed, or a number followed by s, m
 * or h; more than 0 and at most max_s seconds.  0 on success.
 */
int pi_parse_duration(const char *s, double max_s, long long *ms);
/* A size in bytes, optionally followed by K, M or G (1024-based). */
int pi_parse_size(const char *s, long long min, long long max,
    long long *out);

/* Make sure fds 0-2 are open, or a later open() would become stdout. */
void pi_check_fds(void);
/*
 * Unblock the signals a program acts on (SIGINT, SIGTERM, SIGHUP,
 * SIGCHLD, SIGPIPE, SIGALRM): a blocked mask is inherited across exec,
 * and a caller that blocked them would otherwise leave us deaf.
 */
void pi_unblock_signals(void);
/* write(2) until all of p is written; -1 with errno on failure. */
int pi_write_all(int fd, const void *p, size_t n);
/* How many '\n' bytes the n bytes at p hold. */
size_t pi_count_lf(const char *p, size_t n);

#endif
