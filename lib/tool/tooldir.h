/*
 * tooldir: custom tools, the Unix way.  Every executable regular file in
 * a tool directory whose name is a valid tool name ([A-Za-z0-9_-], at
 * most 64 characters) is a tool: "NAME --schema" prints its definition,
 * a JSON object with "description" and "inputSchema" (or pi's
 * "parameters"), and "name" if it wants to say it; the call's input
 * arrives as one JSON line on stdin.
 *
 * This module only finds tools and reads definitions; running them (in
 * the sandbox) is the caller's.  Returned strings and objects are the
 * caller's to free.
 */
#ifndef PI_TOOLDIR_H
#define PI_TOOLDIR_H

#include <stddef.h>

struct json_object;
struct pi_error;
struct strv;

int tooldir_valid_name(const char *name);
/* The tool's path when dir holds an executable of that name, else NULL. */
char *tooldir_find(const char *dir, const char *name);
/* The tools' names, sorted. */
int tooldir_list(const char *dir, struct strv *names, struct pi_error *e);
/*
 * A "tool" line (event.h) from a --schema answer, or NULL with a
 * message saying what is wrong with it.
 */
struct json_object *tooldir_definition(const char *name, const char *text,
    size_t len, struct pi_error *e);

#endif
