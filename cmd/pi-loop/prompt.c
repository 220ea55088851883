/*
 * The system prompt: a default that lists the tools the model has, or
 * --system; then --append-system; then the AGENTS.md files of the
 * workspace and its parents, root first; then the date and the
 * working directory, as pi builds its own (pi-mono.md 3.7).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loop.h"
#include "core/buf.h"
#include "core/event.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define MAX_PROMPT_FILE	(1u << 20)

static const char intro[] =
    "You are an expert coding assistant running inside pi, a coding-agent "
    "runtime.  You help the user by reading files, running commands, "
    "editing code and writing new files, in the workspace given below.";

static const char guidelines[] =
    "Guidelines:\n"
    "- Read a file before you edit it, and make edits small and exact.\n"
    "- Use edit for changes to existing files; write only for new files "
    "or complete rewrites.\n"
    "- Check your work: run the build or the tests when there are any.\n"
    "- Every command runs in a sandbox: the workspace is writable, the "
    "rest of the system is read-only, and the network is off unless the "
    "user turned it on.\n"
    "- Be concise, and show file paths clearly when you work with files.";

/* A file's text, or NULL with errno set (EFBIG: over MAX_PROMPT_FILE). */
static char *
slurp(const char *path)
{
	struct buf b;
	int saved;

	buf_init(&b, MAX_PROMPT_FILE);
	if (buf_read_file(&b, path) == -1) {
		saved = errno;
		buf_release(&b);
		errno = saved;
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* TEXT, or the contents of FILE for @FILE; a file that cannot be read
 * is a usage error, said before anything is made. */
char *
text_arg(const char *arg, const char *opt)
{
	char *t;

	if (arg[0] != '@')
		return xstrdup(arg);
	if ((t = slurp(arg + 1)) == NULL) {
		fprintf(stderr, "pi-loop: %s %s: %s\n", opt, arg,
		    strerror(errno));
		exit(PI_EXIT_USAGE);
	}
	return t;
}

/* The first sentence of a description, for the tool list. */
static void
first_sentence(struct buf *b, const char *d)
{
	size_t n = 0;

	while (d[n] != '\0' && d[n] != '\n' &&
	    !(d[n] == '.' && (d[n + 1] == ' ' || d[n + 1] == '\0')))
		n++;
	(void)buf_add(b, d, n);
	(void)buf_addc(b, '.');
}

static void
project_context(struct buf *b)
{
	char *dir = xstrdup(L.workspace), *path, *text, *p;
	char **dirs = NULL;
	size_t n = 0, i;
	int header = 0;

	/* The workspace and its parents, then read root first. */
	for (;;) {
		dirs = xrealloc(dirs, (n + 1) * sizeof(*dirs));
		dirs[n++] = xstrdup(dir);
		if ((p = strrchr(dir, '/')) == NULL || strcmp(dir, "/") == 0)
			break;
		p[p == dir ? 1 : 0] = '\0';
	}
	for (i = n; i-- > 0;) {
		path = xasprintf("%s%sAGENTS.md", dirs[i],
		    strcmp(dirs[i], "/") == 0 ? "" : "/");
		if ((text = slurp(path)) != NULL) {
			if (!header)
				(void)buf_adds(b, "\n\n# Project Context\n\n"
				    "Instructions from the project's AGENTS.md "
				    "files:");
			header = 1;
			(void)buf_addf(b, "\n\n## %s\n\n%s", path, text);
			free(text);
		} else if (errno != ENOENT)
			/* Never a part of it in silence. */
			fprintf(stderr, "pi-loop: %s: %s; left out\n", path,
			    errno == EFBIG ? "larger than 1 MiB" :
			    strerror(errno));
		free(path);
		free(dirs[i]);
	}
	free(dirs);
	free(dir);
}

char *
system_prompt(void)
{
	struct buf b;
	struct json_object *def;
	char date[32];
	time_t now = (time_t)(event_clock_ms() / 1000);
	struct tm tm;
	size_t i;

	buf_init(&b, (size_t)-1);
	if (L.o.system != NULL)
		(void)buf_adds(&b, L.o.system);
	else {
		(void)buf_adds(&b, intro);
		(void)buf_adds(&b, "\n\nAvailable tools:");
		for (i = 0; i < L.ntools; i++) {
			def = L.tools[i].def;
			(void)buf_addf(&b, "\n- %s: ", L.tools[i].name);
			first_sentence(&b, jsonx_str(def, "description") ?
			    jsonx_str(def, "description") : "");
		}
		(void)buf_addf(&b, "\n\n%s", guidelines);
	}
	if (L.o.append_system != NULL)
		(void)buf_addf(&b, "\n\n%s", L.o.append_system);
	project_context(&b);
	if (localtime_r(&now, &tm) == NULL ||
	    strftime(date, sizeof(date), "%Y-%m-%d", &tm) == 0)
		(void)snprintf(date, sizeof(date), "unknown");
	(void)buf_addf(&b, "\n\nCurrent date: %s\nCurrent working directory: "
	    "%s", date, L.workspace);
	return buf_detach(&b, NULL);
}
