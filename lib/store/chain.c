/* chain: see chain.h. */
#include "chain.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <nettle/sha2.h>

#include "store.h"
#include "core/banned.h"

_Static_assert(SHA256_DIGEST_SIZE == CHAIN_LEN, "chain: not SHA-256");

static void
field(struct sha256_ctx *c, const char *p, size_t n)
{
	char len[32];
	int k;

	if (p == NULL) {
		sha256_update(c, 1, (const uint8_t *)"-");
		return;
	}
	k = snprintf(len, sizeof(len), "%zu:", n);
	sha256_update(c, (size_t)k, (const uint8_t *)len);
	sha256_update(c, n, (const uint8_t *)p);
	sha256_update(c, 1, (const uint8_t *)",");
}

static void
str(struct sha256_ctx *c, const char *s)
{
	field(c, s, s ? strlen(s) : 0);
}

void
chain_hash(const unsigned char *parent, const struct store_entry *en,
    unsigned char out[CHAIN_LEN])
{
	static const unsigned char root[CHAIN_LEN];
	struct sha256_ctx c;
	char ts[32];
	int k;

	sha256_init(&c);
	sha256_update(&c, CHAIN_LEN, parent ? parent : root);
	str(&c, en->id);
	str(&c, en->parent_id);
	str(&c, en->type);
	str(&c, en->role);
	str(&c, en->message_id);
	str(&c, en->tool_call_id);
	k = snprintf(ts, sizeof(ts), "%" PRId64, en->ts);
	field(&c, ts, (size_t)k);
	field(&c, en->data, en->data_len);
	sha256_digest(&c, CHAIN_LEN, out);
}

void
chain_hex(const unsigned char h[CHAIN_LEN], char out[2 * CHAIN_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < CHAIN_LEN; i++) {
		out[2 * i] = hex[h[i] >> 4];
		out[2 * i + 1] = hex[h[i] & 15];
	}
	out[2 * CHAIN_LEN] = '\0';
}
