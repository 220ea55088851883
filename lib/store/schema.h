/*
 * schema: the database's tables, version by version, and bringing a
 * database up to date as it is opened.  For store.c only.
 *
 * The schema is a list of steps: step i takes a database from version
 * i to i + 1 (PRAGMA user_version), with SQL and, where rows already
 * there need filling in, a function run after it.  A new database is
 * made by running every step, an older one by running those it lacks,
 * all in one transaction: a database is at one version or the next,
 * never between.  Adding a table or a column is one more step and
 * STORE_SCHEMA one higher; nothing else changes.  A database of a
 * newer schema is refused (PI_EXIT_CONFIG), as is one not ours.
 */
#ifndef PI_SCHEMA_H
#define PI_SCHEMA_H

struct pi_error;
struct store;

/* Make the schema (when create is set) or bring it up to date. */
int schema_setup(struct store *s, int create, struct pi_error *e);

#endif
