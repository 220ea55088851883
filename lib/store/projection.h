/*
 * projection: the model's context as a projection of the session tree
 * (invariant I16): the path from an entry to the root, turned into the
 * context stream pi-llm reads (DESIGN.md section 2), as pi's
 * buildSessionContext and convertToLlm do it.
 *
 * Along the path the newest system-prompt entry (a "custom" entry of
 * customType "pi.system") gives the system line, the newest
 * model_change or assistant message the model, and the newest
 * thinking_level_change the thinking level.  Without a compaction every
 * message, custom_message and branch_summary entry is a message, oldest
 * first; with one, its summary comes first, then the entries from its
 * firstKeptEntryId up to it, then those after it.  Messages of role
 * user, assistant and toolResult go out as they were stored, byte for
 * byte; bashExecution, custom, custom_message and the summaries become
 * user messages with pi's wording.
 *
 * The walk goes from the head back only as far as it must: to the
 * first kept entry of the newest compaction and to the newest of each
 * setting.  Memory: the kept lines, copied.
 *
 * An entry stored before the store checked what it takes, and that it
 * would refuse now (store_entry's invalid), is passed over, and named
 * in skipped when it would have been part of the context.
 */
#ifndef PI_PROJECTION_H
#define PI_PROJECTION_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "core/util.h"

struct ndjson_batch;
struct pi_error;

#define PROJECTION_SYSTEM_TYPE	"pi.system"	/* customType */

struct projection {
	/* The message lines, newest first while walking. */
	char **lines;
	size_t n, cap;
	/* Lines after the newest compaction, while it is being looked for. */
	size_t after;
	char *system;		/* NULL: none */
	char *provider, *model;	/* NULL: none */
	char *thinking;		/* NULL: "off" */
	char *compaction_id;	/* the compaction applied, or NULL */
	char *first_kept;	/* its firstKeptEntryId, while walking */
	char *summary;		/* its summary line */
	int64_t depth;		/* entries on the path */
	size_t chars;		/* of the messages: pi estimates tokens as /4 */
	struct strv skipped;	/* "ID: why" of the entries passed over */
	int state;
};

void projection_init(struct projection *p);
void projection_release(struct projection *p);
/* Walk the path that ends at head (n 0: an empty context). */
int projection_build(struct projection *p, struct store *s,
    struct store_pos head, struct pi_error *e);
/*
 * Write the stream: a "context" line (sessionId and headId as given,
 * counts, model, thinking level, the compaction applied), the system
 * line, then the messages.
 */
int projection_write(struct projection *p, const char *session_id,
    const char *head_id, struct ndjson_batch *w);

#endif
