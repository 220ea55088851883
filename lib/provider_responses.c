/* provider_responses: openai-responses.  Not written yet: refuses every call. */
#include <stddef.h>

#include "provider.h"
#include "util.h"
#include "banned.h"

static int
request(const struct llm_call *c, struct llm_request *q, struct pi_error *e)
{
	(void)c, (void)q;
	return pi_err(e, PI_EXIT_CONFIG, "unsupported_api",
	    "the openai-responses API is not implemented yet");
}

static void *
stream_new(struct reply *r)
{
	return sse_stream_new(sizeof(struct sse_stream), r, NULL, "the end");
}

const struct api api_openai_responses = {
	"openai-responses", 64, request, stream_new, sse_stream_push,
	sse_stream_end, sse_stream_free,
};
