/* pifile: see pifile.h. */
#include "pifile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "core/banned.h"

#define NONE		((size_t)-1)
#define MAX_FILE	((size_t)4 << 30)	/* a session file we read */

void
pifile_init(struct pifile *f)
{
	memset(f, 0, sizeof(*f));
}

void
pifile_release(struct pifile *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++) {
		free(f->v[i].id);
		free(f->v[i].parent_id);
		json_object_put(f->v[i].data);
		json_object_put(f->v[i].obj);
	}
	free(f->v);
	free(f->order);
	free(f->ix);
	free(f->sessions);
	json_object_put(f->header);
	memset(f, 0, sizeof(*f));
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t
days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
digits(const char **s, int n, int64_t *out)
{
	int64_t v = 0;

	while (n-- > 0) {
		if (**s < '0' || **s > '9')
			return -1;
		v = v * 10 + (*(*s)++ - '0');
	}
	*out = v;
	return 0;
}

int
pifile_parse_time(const char *s, int64_t *ms)
{
	int64_t y, mo, d, h, mi, sec, frac = 0, scale = 1000, oh, om, off = 0;
	int sign;

	if (s == NULL || digits(&s, 4, &y) || *s++ != '-' ||
	    digits(&s, 2, &mo) || *s++ != '-' || digits(&s, 2, &d) ||
	    (*s != 'T' && *s != ' ') || !*s++ || digits(&s, 2, &h) ||
	    *s++ != ':' || digits(&s, 2, &mi) || *s++ != ':' ||
	    digits(&s, 2, &sec))
		return -1;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (scale > 1) {
				scale /= 10;
				frac += (*s - '0') * scale;
			}
	}
	if (*s == 'Z' || *s == 'z')
		s++;
	else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if (digits(&s, 2, &oh) || (*s == ':' && !*s++) ||
		    digits(&s, 2, &om))
			return -1;
		off = sign * (oh * 60 + om) * 60000;
	} else
		return -1;
	if (*s != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	*ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 +
	    sec * 1000 + frac - off;
	return 0;
}

void
pifile_format_time(int64_t ms, char out[32])
{
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || tm.tm_year < -1900 ||
	    tm.tm_year > 9999 - 1900) {
		(void)snprintf(out, 32, "1970-01-01T00:00:00.000Z");
		return;
	}
	(void)snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100,
	    tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100,
	    tm.tm_sec % 100, (int)(ms - (int64_t)t * 1000) % 1000);
}

static void
warnf(void (*warn)(void *, const char *), void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
warnf(void (*warn)(void *, const char *), void *arg, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (warn != NULL)
		warn(arg, msg);
}

/* The lines of a file as read: objects, and the numbers of the rest. */
struct lines {
	struct json_object **v;
	size_t *linenos;
	size_t n, cap;
	size_t *bad;
	size_t nbad;
	size_t lineno;
};

/*
 * One line: a JSON object is kept, the number of anything else goes
 * to bad, so that it is named only once the file is known to be a
 * session file.
 */
static void
take_line(struct lines *l, const char *p, size_t len)
{
	struct json_object *o;

	l->lineno++;
	while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' '))
		len--;
	if (len == 0)
		return;
	o = jsonx_parse(p, len, NULL);
	if (!jsonx_is(o, json_type_object)) {
		json_object_put(o);
		l->bad = xrealloc(l->bad, (l->nbad + 1) * sizeof(*l->bad));
		l->bad[l->nbad++] = l->lineno;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
		l->linenos = xrealloc(l->linenos, l->cap * sizeof(*l->linenos));
	}
	l->linenos[l->n] = l->lineno;
	l->v[l->n++] = o;
}

/*
 * Read fd a piece at a time, a line at a time, each line at most
 * PI_MAX_LINE bytes (the cap of every line pi reads), so that a line
 * too long is refused before it is all in memory; the last line may
 * lack its newline.
 */
static int
read_lines(int fd, const char *name, struct lines *l, struct pi_error *e)
{
	char chunk[65536], *p, *nl;
	struct buf part;
	size_t total = 0, k;
	ssize_t n;
	int rc = -1;

	buf_init(&part, PI_MAX_LINE);
	for (;;) {
		if ((n = read(fd, chunk, sizeof(chunk))) == -1 &&
		    errno == EINTR)
			continue;
		if (n == -1) {
			pi_err(e, PI_EXIT_FAIL, "io", "%s: read: %s", name,
			    strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if ((total += (size_t)n) > MAX_FILE) {
			pi_err(e, PI_EXIT_INPUT, "bad_input", "%s: larger than "
			    "%zu bytes", name, MAX_FILE);
			goto out;
		}
		for (p = chunk; p < chunk + n; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(chunk + n - p))) ==
			    NULL)
				nl = chunk + n;
			k = (size_t)(nl - p);
			if (buf_add(&part, p, k) == -1) {
				pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: "
				    "line longer than %u bytes", name,
				    l->lineno + 1, PI_MAX_LINE);
				goto out;
			}
			if (nl == chunk + n)
				break;
			take_line(l, part.data, part.len);
			buf_reset(&part);
		}
	}
	if (part.len > 0)
		take_line(l, part.data, part.len);
	rc = 0;
out:
	buf_release(&part);
	return rc;
}

/* The ids of a file so far: a set, so that a large file reads fast. */
struct idset {
	const char **v;
	size_t cap, n;
};

static size_t
hash(const char *s)
{
	size_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* 1 when id was there already, else 0 and it is added (not copied). */
static int
idset_add(struct idset *h, const char *id)
{
	const char **old = h->v;
	size_t i, k, cap = h->cap;

	if (2 * (h->n + 1) > h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->v = xcalloc(h->cap, sizeof(*h->v));
		h->n = 0;
		for (i = 0; i < cap; i++)
			if (old[i] != NULL)
				(void)idset_add(h, old[i]);
		free(old);
	}
	for (k = hash(id) & (h->cap - 1); h->v[k] != NULL;
	    k = (k + 1) & (h->cap - 1))
		if (strcmp(h->v[k], id) == 0)
			return 1;
	h->v[k] = id;
	h->n++;
	return 0;
}

/* pi's v1 ids: 8 hex digits, drawn until unused in this file. */
static char *
short_id(struct idset *ids)
{
	char id[37], *s;

	for (;;) {
		pi_uuid7(id);
		/* The random part: the time-ordered head would repeat. */
		s = xstrndup(id + 28, 8);
		if (idset_add(ids, s) == 0)
			return s;
		free(s);
	}
}

/* Split an entry object into its common fields and its data. */
static void
take_entry(struct pifile_entry *en, struct json_object *o, int64_t def_ts)
{
	en->obj = o;
	en->type = jsonx_str(o, "type");
	if (pifile_parse_time(jsonx_str(o, "timestamp"), &en->ts) == -1)
		en->ts = def_ts;
	if (strcmp(en->type, "message") == 0) {
		en->data = jsonx_ref(jsonx_obj(o, "message"));
		en->role = jsonx_str(en->data, "role");
		return;
	}
	en->data = json_object_new_object();
	json_object_object_foreach(o, k, val) {
		if (strcmp(k, "type") == 0 || strcmp(k, "id") == 0 ||
		    strcmp(k, "parentId") == 0 || strcmp(k, "timestamp") == 0)
			continue;
		json_object_object_add(en->data, k, jsonx_ref(val));
	}
}

int
pifile_read_fd(struct pifile *f, int fd, const char *name,
    void (*warn)(void *, const char *), void *arg, struct pi_error *e)
{
	struct json_object **objs, *o, *m;
	struct lines l;
	size_t n, i, j, *linenos, idx, *bad, nbad;
	const char *type, *id, *parent, *prev = NULL;
	struct pifile_entry *en;
	struct idset ids = { NULL, 0, 0 };
	int rc = -1;

	memset(&l, 0, sizeof(l));
	rc = read_lines(fd, name, &l, e);
	objs = l.v;
	linenos = l.linenos;
	n = l.n;
	bad = l.bad;
	nbad = l.nbad;
	if (rc == -1)
		goto out;
	rc = -1;
	if (n == 0 || (type = jsonx_str(objs[0], "type")) == NULL ||
	    strcmp(type, "session") != 0 || jsonx_str(objs[0], "id") == NULL) {
		pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: not a pi "
		    "session file: the first line must be a \"session\" "
		    "header with an \"id\"", name, n ? linenos[0] : (size_t)1);
		goto out;
	}
	f->header = objs[0];
	objs[0] = NULL;
	f->id = jsonx_str(f->header, "id");
	f->cwd = jsonx_str(f->header, "cwd");
	f->parent_session = jsonx_str(f->header, "parentSession");
	f->version = (int)jsonx_int(f->header, "version", 1);
	if (pifile_parse_time(jsonx_str(f->header, "timestamp"), &f->ts) == -1)
		f->ts = pi_now_ms();
	if (f->version > PIFILE_VERSION || f->version < 1) {
		pi_err(e, PI_EXIT_INPUT, "bad_input", "%s:%zu: session file "
		    "version %d (this pi-sess reads 1 to %d)", name,
		    linenos[0], f->version, PIFILE_VERSION);
		goto out;
	}
	for (i = 0; i < nbad; i++)
		warnf(warn, arg, "%s:%zu: skipped: not a JSON object", name,
		    bad[i]);
	f->skipped += nbad;
	f->v = xcalloc(n, sizeof(*f->v));
	for (i = 1; i < n; i++) {
		o = objs[i];
		type = jsonx_str(o, "type");
		if (type == NULL || strcmp(type, "session") == 0) {
			warnf(warn, arg, "%s:%zu: skipped: %s", name,
			    linenos[i], type ? "a second header" :
			    "no \"type\"");
			f->skipped++;
			continue;
		}
		if (strcmp(type, "message") == 0 &&
		    jsonx_obj(o, "message") == NULL) {
			warnf(warn, arg, "%s:%zu: skipped: a message entry "
			    "without a \"message\" object", name, linenos[i]);
			f->skipped++;
			continue;
		}
		en = &f->v[f->n];
		en->lineno = linenos[i];
		if (f->version == 1) {
			en->id = short_id(&ids);
			en->parent_id = prev ? xstrdup(prev) : NULL;
			prev = en->id;
			/*
			 * The index counts parsed lines, the header 0; the
			 * id is filled below, once every id is known.
			 */
			if (strcmp(type, "compaction") == 0 &&
			    jsonx_is(jsonx_get(o, "firstKeptEntryIndex"),
			    json_type_int)) {
				idx = (size_t)jsonx_int(o,
				    "firstKeptEntryIndex", 0);
				json_object_object_del(o,
				    "firstKeptEntryIndex");
				if (idx > 0 && idx < n)
					en->kept_line = linenos[idx];
			}
		} else {
			id = jsonx_str(o, "id");
			parent = jsonx_str(o, "parentId");
			if (id == NULL || *id == '\0' ||
			    idset_add(&ids, id) == 1) {
				warnf(warn, arg, "%s:%zu: skipped: %s", name,
				    linenos[i], id && *id ? "its id is taken "
				    "by an earlier entry" : "no \"id\"");
				f->skipped++;
				continue;
			}
			en->id = xstrdup(id);
			en->parent_id = parent && *parent ? xstrdup(parent) :
			    NULL;
		}
		if (f->version < 3 && strcmp(type, "message") == 0 &&
		    (m = jsonx_obj(o, "message")) != NULL &&
		    jsonx_str(m, "role") != NULL &&
		    strcmp(jsonx_str(m, "role"), "hookMessage") == 0)
			jsonx_set_str(m, "role", "custom");
		take_entry(en, o, f->ts);
		objs[i] = NULL;
		f->n++;
	}
	if (f->version == 1) {
		/* firstKeptEntryIndex named a parsed line: find its entry. */
		for (i = 0; i < f->n; i++) {
			en = &f->v[i];
			for (j = 0; en->kept_line > 0 && j < f->n; j++)
				if (f->v[j].lineno == en->kept_line)
					jsonx_set_str(en->data,
					    "firstKeptEntryId", f->v[j].id);
		}
	}
	rc = 0;
out:
	free(ids.v);
	free(bad);
	for (i = 0; i < n; i++)
		json_object_put(objs[i]);
	free(objs);
	free(linenos);
	return rc;
}

size_t
pifile_find(const struct pifile *f, const char *id)
{
	const size_t *ix = f->ix;
	size_t lo = 0, hi = f->n, mid;
	int c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(f->v[ix[mid]].id, id);
		if (c == 0)
			return ix[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

static const struct pifile *sort_f;

static int
by_id(const void *a, const void *b)
{
	return strcmp(sort_f->v[*(const size_t *)a].id,
	    sort_f->v[*(const size_t *)b].id);
}

/* Give the entries of the path ending at leaf, not yet held, to s. */
static void
claim(struct pifile *f, size_t leaf, size_t s)
{
	struct pifile_session *ss = &f->sessions[s];
	size_t i = leaf, below = NONE;

	ss->bp = NONE;
	ss->parent = NONE;
	ss->last = leaf;
	while (i != NONE && f->v[i].session == NONE) {
		f->v[i].session = s;
		ss->count++;
		below = i;
		i = f->v[i].parent;
	}
	ss->first = below;
	if (i != NONE) {
		ss->bp = i;
		ss->parent = f->v[i].session;
	}
}

void
pifile_plan(struct pifile *f)
{
	size_t *ix = xcalloc(f->n + 1, sizeof(*ix)), i, k, *stack, top;
	size_t **kids, *nk, *path;
	char *state, *placed;

	for (i = 0; i < f->n; i++)
		ix[i] = i;
	sort_f = f;
	qsort(ix, f->n, sizeof(*ix), by_id);
	f->ix = ix;
	for (i = 0; i < f->n; i++) {
		f->v[i].session = NONE;
		f->v[i].parent = f->v[i].parent_id ?
		    pifile_find(f, f->v[i].parent_id) : NONE;
		if (f->v[i].parent != NONE)
			f->v[f->v[i].parent].nchildren++;
	}
	/*
	 * A cycle of parent links would leave its entries without a root:
	 * follow each chain once, and cut the link that closes a cycle.
	 */
	state = xcalloc(f->n + 1, 1);
	path = xcalloc(f->n + 1, sizeof(*path));
	for (i = 0; i < f->n; i++) {
		size_t j = i, len = 0;

		while (j != NONE && state[j] == 0) {
			state[j] = 1;
			path[len++] = j;
			j = f->v[j].parent;
		}
		if (j != NONE && state[j] == 1) {
			k = path[len - 1];
			f->v[j].nchildren--;
			f->v[k].parent = NONE;
		}
		while (len > 0)
			state[path[--len]] = 2;
	}
	free(state);
	free(path);
	f->sessions = xcalloc(f->n + 1, sizeof(*f->sessions));
	if (f->n > 0)
		claim(f, f->n - 1, f->nsessions++);
	for (i = 0; i < f->n; i++)
		if (f->v[i].nchildren == 0 && f->v[i].session == NONE)
			claim(f, i, f->nsessions++);
	/*
	 * Parents first, the file's order otherwise: an entry whose parent
	 * is already placed goes now; one whose parent comes later waits
	 * for it, and then goes right after it.
	 */
	kids = xcalloc(f->n + 1, sizeof(*kids));
	nk = xcalloc(f->n + 1, sizeof(*nk));
	placed = xcalloc(f->n + 1, 1);
	f->order = xcalloc(f->n + 1, sizeof(*f->order));
	stack = xcalloc(f->n + 1, sizeof(*stack));
	k = 0;
	for (i = 0; i < f->n; i++) {
		size_t p = f->v[i].parent;

		if (p != NONE && !placed[p]) {
			if (kids[p] == NULL)
				kids[p] = xcalloc(f->v[p].nchildren + 1,
				    sizeof(**kids));
			kids[p][nk[p]++] = i;
			continue;
		}
		top = 0;
		stack[top++] = i;
		while (top > 0) {
			size_t x = stack[--top], c;

			f->order[k++] = x;
			placed[x] = 1;
			for (c = nk[x]; c-- > 0;)
				stack[top++] = kids[x][c];
		}
	}
	free(placed);
	for (i = 0; i < f->n; i++)
		free(kids[i]);
	free(kids);
	free(nk);
	free(stack);
}

char *
pifile_entry_line(const char *type, const char *id, const char *parent_id,
    int64_t ts, const char *data, size_t data_len, size_t *len)
{
	struct json_object *o = json_object_new_object(), *d;
	int fields_first = strcmp(type, "custom") == 0 ||
	    strcmp(type, "custom_message") == 0;
	char when[32];
	const char *s;
	char *line;

	pifile_format_time(ts, when);
	d = jsonx_parse(data, data_len, NULL);
	jsonx_set_str(o, "type", type);
	if (fields_first && jsonx_is(d, json_type_object)) {
		json_object_object_foreach(d, k, v)
			json_object_object_add(o, k, jsonx_ref(v));
	}
	jsonx_set_str(o, "id", id);
	jsonx_set(o, "parentId", parent_id ?
	    json_object_new_string(parent_id) : NULL);
	jsonx_set_str(o, "timestamp", when);
	if (strcmp(type, "message") == 0)
		jsonx_set(o, "message", jsonx_ref(d));
	else if (!fields_first && jsonx_is(d, json_type_object)) {
		json_object_object_foreach(d, k, v)
			json_object_object_add(o, k, jsonx_ref(v));
	}
	json_object_put(d);
	s = jsonx_string(o, len);
	line = xstrndup(s, *len);
	json_object_put(o);
	return line;
}

char *
pifile_header_line(const char *id, int64_t ts, const char *cwd,
    const char *parent_session, size_t *len)
{
	struct json_object *o = json_object_new_object();
	char when[32];
	const char *s;
	char *line;

	pifile_format_time(ts, when);
	jsonx_set_str(o, "type", "session");
	jsonx_set_int(o, "version", PIFILE_VERSION);
	jsonx_set_str(o, "id", id);
	jsonx_set_str(o, "timestamp", when);
	jsonx_set_str(o, "cwd", cwd ? cwd : "");
	if (parent_session != NULL)
		jsonx_set_str(o, "parentSession", parent_session);
	s = jsonx_string(o, len);
	line = xstrndup(s, *len);
	json_object_put(o);
	return line;
}
