/* util: see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

int
pi_err(struct pi_error *e, int status, const char *code, const char *fmt, ...)
{
	char msg[sizeof(e->msg)];
	va_list ap;

	if (e == NULL)
		return -1;
	/* Through a copy: a new message may quote e->msg, the old one. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(e->msg, msg, sizeof(msg));
	e->status = status;
	e->code = code;
	return -1;
}

void
pi_usage_err(const char *prog, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(usage, stderr);
	exit(PI_EXIT_USAGE);
}

int
pi_is_temporary(const struct pi_error *e)
{
	return e->status == PI_EXIT_TEMP;
}

static void
oom(void)
{
	static const char m[] = "out of memory\n";

	(void)!write(2, m, sizeof(m) - 1);
	_exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

long long
pi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long
pi_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long long
pi_mono_ms(void)
{
	return pi_mono_us() / 1000;
}

static void
fill_random(unsigned char *p, size_t n)
{
	static unsigned long long x;
	ssize_t r;
	int fd;

	/* One system call where the kernel has it (Linux 3.17, glibc 2.25). */
	if ((r = getrandom(p, n, 0)) == (ssize_t)n)
		return;
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) != -1) {
		r = read(fd, p, n);
		close(fd);
	}
	if (r == (ssize_t)n)
		return;
	/* No urandom (a bare chroot): ids must still differ. */
	if (x == 0)
		x = (unsigned long long)pi_mono_us() ^ ((unsigned long long)getpid() << 32);
	while (n--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		*p++ = (unsigned char)x;
	}
}

void
pi_uuid7(char out[37])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[16];
	unsigned long long ms = (unsigned long long)pi_now_ms();
	int i, j;

	fill_random(b + 6, 10);
	for (i = 0; i < 6; i++)
		b[i] = (unsigned char)(ms >> (8 * (5 - i)));
	b[6] = (b[6] & 0x0f) | 0x70;
	b[8] = (b[8] & 0x3f) | 0x80;
	for (i = 0, j = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[b[i] >> 4];
		out[j++] = hex[b[i] & 15];
	}
	out[j] = '\0';
}

char *
pi_base64(const void *data, size_t n)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	char *out, *o;
	uint32_t v;
	size_t i;

	/* No overflow: an object in memory is under SIZE_MAX / 2 bytes. */
	out = o = xmalloc((n + 2) / 3 * 4 + 1);
	for (i = 0; i < n; i += 3) {
		v = (uint32_t)p[i] << 16 |
		    (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
		    (i + 2 < n ? p[i + 2] : 0);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

int
pi_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
pi_parse_duration(const char *s, double max_s, long long *ms)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end == 's')
		end++;
	else if (*end == 'm')
		v *= 60, end++;
	else if (*end == 'h')
		v *= 3600, end++;
	if (errno || end == s || *end != '\0' || !(v > 0) || v > max_s)
		return -1;
	*ms = (long long)(v * 1000 + 0.5);
	return *ms > 0 ? 0 : -1;
}

int
pi_parse_size(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;
	int shift = 0;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (errno || *end != '\0' || v > (max >> shift))
		return -1;
	v <<= shift;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

void
pi_check_fds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
}

int
pi_write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t k;

	while (n > 0) {
		k = write(fd, s, n);
		if (k == -1 && errno == EINTR)
			continue;
		if (k == -1)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

void
strv_push(struct strv *s, const char *str)
{
	s->v = xrealloc(s->v, (s->n + 2) * sizeof(*s->v));
	s->v[s->n++] = xstrdup(str);
	s->v[s->n] = NULL;
}

void
strv_release(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

const char *const *
strv_list(const struct strv *s)
{
	static const char *const empty[] = { NULL };

	return s->v != NULL ? (const char *const *)s->v : empty;
}

size_t
pi_count_lf(const char *p, size_t n)
{
	const char *q, *end = p + n;
	size_t k = 0;

	while ((q = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		k++;
		p = q + 1;
	}
	return k;
}

void
pi_unblock_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE,
	    SIGALRM };
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
}
