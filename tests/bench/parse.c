/*
 * parse: throughput of the stream path in one process, in MB of stream
 * per CPU-second, on a recorded stream file.
 *
 *   sse      the SSE framing alone (lib/sse), a counting callback;
 *   decode   SSE + the OpenAI decoder + the reply builder, every event
 *            serialised to a string but not written.
 *
 * usage: parse FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "llm/provider.h"
#include "llm/reply.h"
#include "llm/sse.h"

static size_t events, bytes_out;

static double
cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
count(void *arg, const char *ev, const char *data, size_t n,
    struct pi_error *e)
{
	(void)arg, (void)ev, (void)data, (void)e;
	events++;
	bytes_out += n;
	return 0;
}

static int
serialise(void *arg, struct json_object *ev)
{
	size_t n;

	(void)arg;
	jsonx_string(ev, &n);
	bytes_out += n + 1;
	events++;
	return 0;
}

int
main(int argc, char **argv)
{
	struct sse_parser p;
	struct pi_error e;
	struct reply r;
	struct buf in;
	const struct api *api = &api_openai_completions;
	char tmp[65536];
	size_t n, off, rounds = 5, i;
	double t0, t;
	void *s;
	FILE *f;

	if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL) {
		fputs("usage: parse FILE\n", stderr);
		return 2;
	}
	buf_init(&in, (size_t)1 << 30);
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(&in, tmp, n);
	fclose(f);

	t0 = cpu();
	for (i = 0; i < rounds; i++) {
		sse_init(&p, count, NULL);
		for (off = 0; off < in.len; off += 65536)
			sse_push(&p, in.data + off, in.len - off < 65536 ?
			    in.len - off : 65536, &e);
		sse_release(&p);
	}
	t = cpu() - t0;
	printf("{\"stage\":\"sse\",\"mb\":%.1f,\"mbPerCpuSecond\":%.0f,"
	    "\"events\":%zu}\n", (double)in.len / (1 << 20),
	    (double)in.len * rounds / (1 << 20) / t, events / rounds);

	events = bytes_out = 0;
	t0 = cpu();
	for (i = 0; i < rounds; i++) {
		reply_init(&r, "openai", "openai-completions", "gpt-x",
		    serialise, NULL);
		s = api->stream_new(&r);
		for (off = 0; off < in.len; off += 65536)
			if (api->stream_push(s, in.data + off, in.len - off <
			    65536 ? in.len - off : 65536, &e) == -1) {
				fprintf(stderr, "parse: %s\n", e.msg);
				return 1;
			}
		if (api->stream_end(s, &e) == -1) {
			fprintf(stderr, "parse: %s\n", e.msg);
			return 1;
		}
		api->stream_free(s);
		reply_release(&r);
	}
	t = cpu() - t0;
	printf("{\"stage\":\"decode\",\"mb\":%.1f,\"mbPerCpuSecond\":%.0f,"
	    "\"events\":%zu}\n", (double)in.len / (1 << 20),
	    (double)in.len * rounds / (1 << 20) / t, events / rounds);
	buf_release(&in);
	return 0;
}
