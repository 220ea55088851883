/*
 * tap.h: TAP for the C unit tests, one test program per .c file, so the
 * state is static here.  Failures are diagnosed on stderr with the line.
 */
#ifndef PI_TAP_H
#define PI_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static void diag(const char *, ...) __attribute__((format(printf, 1, 2)));
static int tap_ok(int, const char *, int, const char *, ...)
    __attribute__((format(printf, 4, 5)));

static void
diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond) {
		tap_failed++;
		diag("failed at %s line %d", file, line);
	}
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, name) do { \
	long long got_ = (got), want_ = (want); \
	if (!ok(got_ == want_, "%s", (name))) \
		diag("got %lld, want %lld", got_, want_); \
} while (0)

#define is_str(got, want, name) do { \
	const char *got_ = (got), *want_ = (want); \
	if (!ok(got_ == want_ || (got_ && want_ && \
	    strcmp(got_, want_) == 0), "%s", (name))) \
		diag("got \"%s\", want \"%s\"", got_ ? got_ : "(null)", \
		    want_ ? want_ : "(null)"); \
} while (0)

static int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}

#endif
