/*
 * pi-view: render any pi event stream for a person, as it arrives.
 *
 * Reads NDJSON on stdin (or the files named): the events of pi-llm,
 * pi-tool and pi-loop, pi-sess's export, log and context, bare messages.
 * Writes text: colours on a terminal unless NO_COLOR is set, plain
 * otherwise.  A line that is not JSON is named on stderr and passed
 * over.  The exit status is the one the stream reports, so that
 * "pi-loop ... | pi-view" fails as the run did.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"
#include "core/ndjson.h"
#include "core/util.h"
#include "core/banned.h"

static int qflag, vflag;
static struct render view;
static int bad_lines;

static _Noreturn void
usage(void)
{
	fputs("usage: pi-view [-hqvV] [file ...]\n", stderr);
	exit(PI_EXIT_USAGE);
}

static int
on_line(void *arg, struct json_object *o, size_t lineno,
    struct pi_error *e)
{
	(void)arg;
	(void)lineno;
	if (render_event(&view, o) == -1)
		return pi_err(e, errno == EPIPE ? PI_EXIT_PIPE : PI_EXIT_FAIL,
		    "write", "stdout: %s", strerror(errno));
	return 0;
}

/* A line that is not an event: said, and passed over. */
static int
on_bad(void *arg, const struct pi_error *le, struct pi_error *e)
{
	(void)arg;
	(void)e;
	fprintf(stderr, "pi-view: %s (skipped)\n", le->msg);
	bad_lines++;
	return 0;
}

static void
warn(const char *msg)
{
	fprintf(stderr, "pi-view: %s\n", msg);
}

static int
view_fd(int fd, const char *name)
{
	struct ndjson_reader r;
	struct pi_error e;
	int rc = 0;

	ndjson_reader_init(&r, name, on_line, NULL);
	r.bad = on_bad;
	if (ndjson_read_fd(&r, fd, &e) == -1) {
		if (e.status == PI_EXIT_PIPE)
			rc = PI_EXIT_PIPE;
		else if (strcmp(e.code, "truncated_input") == 0)
			fprintf(stderr, "pi-view: %s (skipped)\n", e.msg);
		else {
			fprintf(stderr, "pi-view: %s\n", e.msg);
			rc = e.status;
		}
	}
	ndjson_reader_release(&r);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *nc = getenv("NO_COLOR");
	int c, i, fd, rc = 0, status;

	pi_check_fds();
	pi_unblock_signals();
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt(argc, argv, "hqvV")) != -1)
		switch (c) {
		case 'h':
			fputs("usage: pi-view [-hqvV] [file ...]\n", stdout);
			return fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL;
		case 'q':
			qflag = 1;
			break;
		case 'v':
			vflag = 1;
			break;
		case 'V':
			puts("pi-view " PI_VERSION);
			return fflush(stdout) == 0 ? 0 : PI_EXIT_FAIL;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	render_init(&view, 1, isatty(1) && (nc == NULL || *nc == '\0'), qflag,
	    vflag);
	if (argc == 0)
		rc = view_fd(0, "stdin");
	for (i = 0; rc == 0 && i < argc; i++) {
		if (strcmp(argv[i], "-") == 0)
			fd = 0;
		else if ((fd = open(argv[i], O_RDONLY | O_CLOEXEC)) == -1) {
			fprintf(stderr, "pi-view: %s: %s\n", argv[i],
			    strerror(errno));
			rc = PI_EXIT_INPUT;
			break;
		}
		rc = view_fd(fd, argv[i]);
		if (fd != 0)
			close(fd);
	}
	status = render_finish(&view, warn);
	render_release(&view);
	if (rc != 0)
		return rc;
	return status;
}
