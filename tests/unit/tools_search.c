/*
 * tools_search: grep and find run in a tree made for them under a
 * mkdtemp directory: "repo" is a git work tree (.git, .gitignore files,
 * info/exclude), "plain" is not.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "core/jsonx.h"
#include "core/util.h"
#include "tool/tools.h"

typedef int toolfn(struct json_object *, const struct tool_limits *,
    struct tool_result *);

static struct tool_result res;

static void
putn(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1 || write(fd, data, n) != (ssize_t)n || close(fd) == -1) {
		diag("cannot write %s: %s", path, strerror(errno));
		exit(1);
	}
}

static void
put(const char *path, const char *data)
{
	putn(path, data, strlen(data));
}

static void
md(const char *path)
{
	if (mkdir(path, 0755) == -1) {
		diag("cannot mkdir %s: %s", path, strerror(errno));
		exit(1);
	}
}

static void
ln(const char *target, const char *path)
{
	if (symlink(target, path) == -1) {
		diag("cannot symlink %s: %s", path, strerror(errno));
		exit(1);
	}
}

static void
rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char *sub;

	if (lstat(path, &st) == -1)
		return;
	if (S_ISDIR(st.st_mode)) {
		chmod(path, 0755);
		if ((d = opendir(path)) != NULL) {
			while ((de = readdir(d)) != NULL) {
				if (strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				sub = xasprintf("%s/%s", path, de->d_name);
				rm_rf(sub);
				free(sub);
			}
			closedir(d);
		}
		rmdir(path);
	} else
		unlink(path);
}

/* Run a tool on the JSON input; the result stays in res. */
static const char *
run(toolfn *fn, const char *json, size_t max_bytes)
{
	struct tool_limits lim = { max_bytes, 2000 };
	struct json_object *in = jsonx_parse(json, strlen(json), NULL);

	if (in == NULL) {
		diag("bad test input %s", json);
		exit(1);
	}
	tool_result_release(&res);
	if (fn(in, &lim, &res) != 0)
		diag("tool returned non-zero for %s", json);
	json_object_put(in);
	return res.output.data;
}

/* Run with the default limits and check the output, unless want is NULL. */
static void
is_run(toolfn *fn, const char *json, const char *want, const char *name)
{
	run(fn, json, 51200);
	if (want == NULL)
		return;
	is_str(res.output.data, want, name);
	if (strcmp(res.output.data, want) != 0 && res.error_code != NULL)
		diag("error code %s", res.error_code);
}

static void
starts(const char *prefix, const char *name)
{
	if (!ok(strncmp(res.output.data, prefix, strlen(prefix)) == 0, "%s",
	    name))
		diag("got \"%s\"", res.output.data);
}

static void
make_repo(void)
{
	char big[700];

	md("repo");
	md("repo/.git");
	md("repo/.git/info");
	put("repo/.git/info/exclude", "# git's own\nexcluded.txt\n");
	put("repo/.git/config", "needle\n");
	put("repo/.gitignore",
	    "*.log\n!keep.log\nbuild/\n/rootonly.txt\nsub/anch.txt\n");
	put("repo/a.txt", "alpha\nneedle one\nbeta\n");
	put("repo/b.log", "needle in log\n");
	put("repo/keep.log", "needle kept\n");
	put("repo/rootonly.txt", "needle\n");
	put("repo/excluded.txt", "needle\n");
	md("repo/build");
	put("repo/build/x.txt", "needle\n");
	md("repo/.hidden");
	put("repo/.hidden/h.txt", "needle hidden\n");
	put("repo/.env", "needle=1\n");
	md("repo/sub");
	put("repo/sub/.gitignore", "*.tmp\n!important.tmp\n");
	put("repo/sub/anch.txt", "needle\n");
	put("repo/sub/rootonly.txt", "needle\n");
	put("repo/sub/x.tmp", "needle\n");
	put("repo/sub/important.tmp", "needle\n");
	md("repo/sub/deeper");
	put("repo/sub/deeper/y.tmp", "needle\n");
	put("repo/sub/deeper/z.txt", "needle\n");
	putn("repo/bin.dat", "needle\0binary\n", 14);
	memcpy(big, "needle ", 7);
	memset(big + 7, 'x', 600);
	big[607] = '\n';
	putn("repo/long.txt", big, 608);
	put("repo/crlf.txt", "needle crlf\r\nline2\r\n");
	ln(".", "repo/loop");
	ln("self", "repo/self");
	ln("a.txt", "repo/link.txt");
}

static void
test_repo(void)
{
	char want[2048];

	if (chdir("repo") == -1)
		exit(1);
	snprintf(want, sizeof(want),
	    ".env:1: needle=1\n"
	    ".hidden/h.txt:1: needle hidden\n"
	    "a.txt:2: needle one\n"
	    "crlf.txt:1: needle crlf\n"
	    "keep.log:1: needle kept\n"
	    "link.txt:2: needle one\n"
	    "long.txt:1: needle %.493s... [truncated]\n"
	    "sub/deeper/z.txt:1: needle\n"
	    "sub/important.tmp:1: needle\n"
	    "sub/rootonly.txt:1: needle\n"
	    "\n"
	    "[Some lines truncated to 500 chars. Use read tool to see full "
	    "lines]", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	is_run(tool_grep, "{\"pattern\":\"needle\"}", want,
	    "grep: .gitignore, its negation and anchoring, nested rules, "
	    "info/exclude, .git, hidden files, binary, symlinks, CR, cut");
	ok(res.error_code == NULL, "grep with matches succeeds");
	ok(res.truncated, "a cut line marks the result truncated");

	is_run(tool_grep, "{\"pattern\":\"needle\",\"path\":\"sub\"}",
	    "deeper/z.txt:1: needle\n"
	    "important.tmp:1: needle\n"
	    "rootonly.txt:1: needle",
	    "grep below the top: the parent's anchored rule applies");
	ok(!res.truncated, "not truncated");
	is_run(tool_grep, "{\"pattern\":\"needle\",\"path\":\"./sub/\"}",
	    "deeper/z.txt:1: needle\n"
	    "important.tmp:1: needle\n"
	    "rootonly.txt:1: needle", "the same path written otherwise");
	is_run(tool_grep, "{\"pattern\":\"needle\",\"path\":\"sub/anch.txt\"}",
	    "anch.txt:1: needle", "a file named is searched, ignored or not");
	is_run(tool_grep, "{\"pattern\":\"needle\",\"path\":\"bin.dat\"}",
	    "No matches found", "a binary file named is still skipped");
	is_run(tool_grep, "{\"pattern\":\"crlf$\"}", "crlf.txt:1: needle crlf",
	    "$ matches before a CR");

	is_run(tool_find, "{\"pattern\":\"*\"}",
	    ".env\n.gitignore\n.hidden/\n.hidden/h.txt\na.txt\nbin.dat\n"
	    "crlf.txt\nkeep.log\nlink.txt\nlong.txt\nloop\nself\nsub/\n"
	    "sub/.gitignore\nsub/deeper/\nsub/deeper/z.txt\n"
	    "sub/important.tmp\nsub/rootonly.txt",
	    "find *: sorted, directories with '/', ignored ones left out, "
	    "symlinks not followed");
	is_run(tool_find, "{\"pattern\":\"*.txt\"}",
	    ".hidden/h.txt\na.txt\ncrlf.txt\nlink.txt\nlong.txt\n"
	    "sub/deeper/z.txt\nsub/rootonly.txt",
	    "find *.txt matches names at any depth");
	is_run(tool_find, "{\"pattern\":\"sub/*\"}",
	    "sub/.gitignore\nsub/deeper/\nsub/important.tmp\n"
	    "sub/rootonly.txt", "find with a '/' matches the path");
	is_run(tool_find, "{\"pattern\":\"**/rootonly.txt\"}",
	    "sub/rootonly.txt", "find **/name");
	is_run(tool_find, "{\"pattern\":\"./a.txt\"}", "a.txt",
	    "find ./name");
	is_run(tool_find, "{\"pattern\":\"{sub,.hidden}/\"}",
	    ".hidden/\nsub/", "find dir/ finds directories");
	is_run(tool_find, "{\"pattern\":\"*.txt\",\"path\":\"sub\"}",
	    "deeper/z.txt\nrootonly.txt",
	    "find below the top: relative, parent rules");
	is_run(tool_grep, "{\"pattern\":\"needle\",\"path\":\"sub/deeper\"}",
	    "z.txt:1: needle", "two levels below: both parents' rules");
	is_run(tool_find, "{\"pattern\":\"config\"}",
	    "No files found matching pattern", "find never enters .git");
	ok(res.error_code == NULL && !res.truncated, "nothing found is fine");
	is_run(tool_find, "{\"pattern\":\"*\",\"limit\":2}",
	    ".env\n.gitignore\n\n"
	    "[2 results limit reached. Use limit=4 for more, or refine "
	    "pattern]", "find: the limit notice");
	ok(res.truncated, "truncated at the limit");
	is_str(run(tool_find, "{\"pattern\":\"*\"}", 20),
	    ".env\n.gitignore\n\n[20B limit reached]",
	    "find: whole lines within the byte limit");
	ok(res.truncated, "truncated at the byte limit");
	is_str(run(tool_find, "{\"pattern\":\"*\",\"limit\":3}", 20),
	    ".env\n.gitignore\n\n[3 results limit reached. Use limit=6 for "
	    "more, or refine pattern. 20B limit reached]",
	    "find: both limits, in pi's order");
	is_run(tool_find, "{\"pattern\":\"*\",\"path\":\"a.txt\"}",
	    "Not a directory: a.txt", "find in a file");
	is_str(res.error_code, "not_a_directory", "as not_a_directory");
	is_run(tool_find, "{\"pattern\":\"*\",\"path\":\"nope\"}",
	    "Path not found: nope", "find in nothing");
	is_str(res.error_code, "not_found", "as not_found");
	is_run(tool_find, "{\"pattern\":\"{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"
	    "{a,b}{a,b}{a,b}{a,b}{a,b}\"}", "The glob has more than 1024 "
	    "alternatives once its {a,b} groups are expanded; use fewer "
	    "groups.", "find: a glob too big");
	is_str(res.error_code, "bad_pattern", "as bad_pattern");
	is_run(tool_find, "{\"pattern\":\"*\",\"limit\":0}",
	    "limit must be a whole number of at least 1.", "limit 0");
	is_str(res.error_code, "invalid_arguments", "as invalid_arguments");
	if (chdir("..") == -1)
		exit(1);
}

/* find is smart-case, as fd: an uppercase letter makes case matter. */
static void
test_case(void)
{
	is_run(tool_find, "{\"pattern\":\"readme*\",\"path\":\"plain/case\"}",
	    "README.md\nreadme.txt", "find: lowercase ignores case");
	is_run(tool_find, "{\"pattern\":\"README*\",\"path\":\"plain/case\"}",
	    "README.md", "an uppercase letter makes it matter");
	is_run(tool_find, "{\"pattern\":\"*.txt\",\"path\":\"plain/case\"}",
	    "Notes.TXT\nreadme.txt", "*.txt finds .TXT too");
	is_run(tool_find, "{\"pattern\":\"*.TXT\",\"path\":\"plain/case\"}",
	    "Notes.TXT", "but *.TXT not .txt");
	is_run(tool_find, "{\"pattern\":\"src/main.c\","
	    "\"path\":\"plain/case\"}", "src/Main.c",
	    "a path ignores case too");
	is_run(tool_find, "{\"pattern\":\"SRC/Main.c\","
	    "\"path\":\"plain/case\"}", "No files found matching pattern",
	    "and minds it with an uppercase letter anywhere");
	is_run(tool_find, "{\"pattern\":\"[m]ain.c\","
	    "\"path\":\"plain/case\"}", "src/Main.c", "classes fold");
	is_run(tool_find, "{\"pattern\":\"{notes,readme}.*\","
	    "\"path\":\"plain/case\"}",
	    "Notes.TXT\nREADME.md\nreadme.txt", "alternatives fold");
	is_run(tool_find, "{\"pattern\":\"{Notes,readme}.*\","
	    "\"path\":\"plain/case\"}", "Notes.TXT\nreadme.txt",
	    "one uppercase letter makes every alternative mind case");
}

static void
make_plain(void)
{
	char big[9100];
	size_t i;

	md("plain");
	put("plain/.gitignore", "*.skip\n");
	put("plain/a.skip", "hit\n");
	md("plain/deep");
	put("plain/deep/.gitignore", "!keep.skip\n");
	put("plain/deep/keep.skip", "hit\n");
	put("plain/deep/b.skip", "hit\n");
	put("plain/lit.txt", "a.b(c\naxb(c\n");
	put("plain/dash.txt", "--pre=cat\nother\n");
	put("plain/num.txt", "v12\nvx\nid: 7\n");
	put("plain/case.txt", "Hello\nhello\nHELLO\n");
	put("plain/tab.txt", "a\tb\n");
	put("plain/ctx.txt", "l1\nl2\nl3 hit\nl4\nl5 hit\nl6\nl7\nl8\nl9\n"
	    "l10 hit\nl11\nl12");
	put("plain/many.txt", "hit 1\nhit 2\nhit 3\nhit 4\nhit 5\nhit 6\n");
	put("plain/bad.txt", "bad \xff here\nmid\rdle\r\n");
	md("plain/bin");
	putn("plain/bin/a.dat", "hit\0\n", 5);
	memset(big, 'a', 9000);
	memcpy(big + 9000, "\n\0\nhit\n", 7);
	putn("plain/bin/late.dat", big, 9007);
	md("plain/long");
	memset(big, 'y', 500);
	big[500] = '\n';
	putn("plain/long/500.txt", big, 501);
	for (i = 0; i < 600; i++)
		memcpy(big + 2 * i, "\xc3\xa9", 2);
	putn("plain/long/600.txt", big, 1200);
	md("plain/g");
	put("plain/g/a.c", "hit\n");
	put("plain/g/b.h", "hit\n");
	put("plain/g/c.txt", "hit\n");
	md("plain/g/sub");
	put("plain/g/sub/d.c", "hit\n");
	put("plain/g/sub/e.log", "hit\n");
	md("plain/case");
	put("plain/case/Notes.TXT", "hit\n");
	put("plain/case/README.md", "hit\n");
	put("plain/case/readme.txt", "hit\n");
	md("plain/case/src");
	put("plain/case/src/Main.c", "hit\n");
	md("plain/links");
	put("plain/links/real.txt", "hit\n");
	ln("real.txt", "plain/links/tofile");
	ln(".", "plain/links/loop");
	ln("..", "plain/links/up");
	ln("self", "plain/links/self");
	ln("nowhere", "plain/links/broken");
	md("plain/perm");
	md("plain/perm/closed");
	put("plain/perm/closed/f.txt", "hit\n");
	put("plain/perm/open.txt", "miss\n");
}

/*
 * A directory that cannot be read is skipped and counted.  Root reads
 * any directory, so as root the check runs in a child as nobody.
 */
static int
unreadable_ok(void)
{
	int good = 1;

	run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"plain/perm\"}",
	    51200);
	if (strcmp(res.output.data,
	    "No matches found\n\n[1 directory could not be read]") != 0) {
		diag("grep: %s", res.output.data);
		good = 0;
	}
	run(tool_find, "{\"pattern\":\"*\",\"path\":\"plain/perm\"}", 51200);
	if (strcmp(res.output.data,
	    "closed/\nopen.txt\n\n[1 directory could not be read]") != 0) {
		diag("find: %s", res.output.data);
		good = 0;
	}
	return good;
}

static void
test_unreadable(void)
{
	pid_t pid;
	int status;

	if (chmod("plain/perm/closed", 0) == -1)
		diag("chmod: %s", strerror(errno));
	if (geteuid() != 0) {
		ok(unreadable_ok(), "an unreadable directory is counted");
		chmod("plain/perm/closed", 0755);
		return;
	}
	if ((pid = fork()) == 0) {
		if (setgid(65534) == -1 || setuid(65534) == -1)
			_exit(3);
		_exit(unreadable_ok() ? 0 : 1);
	}
	if (pid == -1 || waitpid(pid, &status, 0) == -1 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) == 3) {
		ok(1, "# skip: cannot become nobody to test unreadable dirs");
		chmod("plain/perm/closed", 0755);
		return;
	}
	ok(WEXITSTATUS(status) == 0, "an unreadable directory is counted");
	chmod("plain/perm/closed", 0755);
}

static void
test_grep(void)
{
	char want[2048], *p;
	size_t i;

	is_run(tool_find, "{\"pattern\":\"*.skip\",\"path\":\"plain\"}",
	    "deep/keep.skip", ".gitignore outside a work tree, nested '!'");
	is_run(tool_grep, "{\"pattern\":\"a.b(\",\"literal\":true,"
	    "\"path\":\"plain/lit.txt\"}", "lit.txt:1: a.b(c",
	    "literal: metacharacters are plain");
	is_run(tool_grep, "{\"pattern\":\"a.b(\",\"path\":\"plain/lit.txt\"}",
	    NULL, NULL);
	is_str(res.error_code, "bad_pattern", "the same as a regex is wrong");
	starts("Invalid regular expression \"a.b(\": Unmatched ( or \\(. "
	    "grep takes a POSIX extended regular expression", "and says why");
	is_run(tool_grep, "{\"pattern\":\"(?=x)\",\"path\":\"plain\"}", NULL,
	    NULL);
	is_str(res.error_code, "bad_pattern", "lookahead is refused");
	starts("Invalid regular expression \"(?=x)\": (?...) groups such as "
	    "lookahead and lookbehind are not supported. ", "in words");
	is_run(tool_grep, "{\"pattern\":\"--pre=cat\",\"path\":\"plain\"}",
	    "dash.txt:1: --pre=cat", "a pattern starting with -- is a pattern");
	is_run(tool_grep, "{\"pattern\":\"-r\",\"path\":\"plain/dash.txt\"}",
	    "No matches found", "and -r is too");
	is_run(tool_grep, "{\"pattern\":\"v\\\\d+$\",\"path\":\"plain\"}",
	    "num.txt:1: v12", "\\d is a digit");
	is_run(tool_grep, "{\"pattern\":\"^id:\\\\s[\\\\d]$\","
	    "\"path\":\"plain\"}", "num.txt:3: id: 7", "\\s, and \\d in []");
	is_run(tool_grep, "{\"pattern\":\"\\\\bv\\\\w{2}\\\\b\","
	    "\"path\":\"plain\"}", "num.txt:1: v12", "\\b, \\w and {n}");
	is_run(tool_grep, "{\"pattern\":\"a\\\\tb\",\"path\":\"plain\"}",
	    "tab.txt:1: a\tb", "\\t is a tab");
	is_run(tool_grep, "{\"pattern\":\"\\\\p{L}\",\"path\":\"plain\"}",
	    NULL, NULL);
	starts("Invalid regular expression \"\\p{L}\": \\p is not supported. ",
	    "\\p is refused, not taken for p");
	is_run(tool_grep, "{\"pattern\":\"hello\",\"path\":\"plain\"}",
	    "case.txt:2: hello", "case matters");
	is_run(tool_grep, "{\"pattern\":\"hello\",\"ignoreCase\":true,"
	    "\"path\":\"plain\"}", "case.txt:1: Hello\ncase.txt:2: hello\n"
	    "case.txt:3: HELLO", "unless ignoreCase");
	is_run(tool_grep, "{\"pattern\":\"(?i)hELLo\",\"path\":\"plain\"}",
	    "case.txt:1: Hello\ncase.txt:2: hello\ncase.txt:3: HELLO",
	    "or (?i)");
	is_run(tool_grep, "{\"pattern\":\"hELLo\",\"ignoreCase\":true,"
	    "\"literal\":true,\"path\":\"plain\"}", "case.txt:1: Hello\n"
	    "case.txt:2: hello\ncase.txt:3: HELLO", "literal ignoreCase");

	is_run(tool_grep, "{\"pattern\":\"hit\",\"context\":1,"
	    "\"path\":\"plain/ctx.txt\"}",
	    "ctx.txt-2- l2\nctx.txt:3: l3 hit\nctx.txt-4- l4\n"
	    "ctx.txt:5: l5 hit\nctx.txt-6- l6\nctx.txt-9- l9\n"
	    "ctx.txt:10: l10 hit\nctx.txt-11- l11",
	    "context: overlaps merged, no -- between groups");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"context\":5,\"limit\":1,"
	    "\"path\":\"plain/ctx.txt\"}",
	    "ctx.txt-1- l1\nctx.txt-2- l2\nctx.txt:3: l3 hit\n"
	    "ctx.txt-4- l4\nctx.txt-5- l5 hit\nctx.txt-6- l6\n"
	    "ctx.txt-7- l7\nctx.txt-8- l8\n\n"
	    "[1 matches limit reached. Use limit=2 for more, or refine "
	    "pattern]", "context at the start, and past the limit");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"context\":3,"
	    "\"path\":\"plain/ctx.txt\",\"limit\":9}",
	    "ctx.txt-1- l1\nctx.txt-2- l2\nctx.txt:3: l3 hit\n"
	    "ctx.txt-4- l4\nctx.txt:5: l5 hit\nctx.txt-6- l6\n"
	    "ctx.txt-7- l7\nctx.txt-8- l8\nctx.txt-9- l9\n"
	    "ctx.txt:10: l10 hit\nctx.txt-11- l11\nctx.txt-12- l12",
	    "context to the end of a file without a last newline");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"plain/many.txt\","
	    "\"limit\":3}", "many.txt:1: hit 1\nmany.txt:2: hit 2\n"
	    "many.txt:3: hit 3\n\n[3 matches limit reached. Use limit=6 for "
	    "more, or refine pattern]", "grep: the limit notice");
	ok(res.truncated, "truncated at the limit");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"plain/many.txt\","
	    "\"limit\":6}", "many.txt:1: hit 1\nmany.txt:2: hit 2\n"
	    "many.txt:3: hit 3\nmany.txt:4: hit 4\nmany.txt:5: hit 5\n"
	    "many.txt:6: hit 6\n\n[6 matches limit reached. Use limit=12 for "
	    "more, or refine pattern]", "exactly the limit is reaching it");
	is_str(run(tool_grep, "{\"pattern\":\"hit\",\"limit\":5,"
	    "\"path\":\"plain/many.txt\"}", 40),
	    "many.txt:1: hit 1\nmany.txt:2: hit 2\n\n"
	    "[5 matches limit reached. Use limit=10 for more, or refine "
	    "pattern. 40B limit reached]", "grep: both limits, pi's order");
	ok(res.truncated, "truncated");
	is_str(run(tool_grep, "{\"pattern\":\"hit\","
	    "\"path\":\"plain/many.txt\"}", 51200 * 2),
	    "many.txt:1: hit 1\nmany.txt:2: hit 2\nmany.txt:3: hit 3\n"
	    "many.txt:4: hit 4\nmany.txt:5: hit 5\nmany.txt:6: hit 6",
	    "no notice under the limits");
	is_str(run(tool_grep, "{\"pattern\":\"hit\","
	    "\"path\":\"plain/many.txt\"}", 10),
	    "\n\n[10B limit reached]", "a first line over the byte limit");

	is_run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"plain/bin\"}",
	    "late.dat:3: hit", "binary skipped; a NUL after 8 KiB is not");
	is_run(tool_grep, "{\"pattern\":\"here\",\"path\":\"plain\"}",
	    "bad.txt:1: bad \xef\xbf\xbd here", "invalid UTF-8 made U+FFFD");
	is_run(tool_grep, "{\"pattern\":\"mid\",\"path\":\"plain\"}",
	    "bad.txt:2: middle", "CRs dropped");
	is_run(tool_grep, "{\"pattern\":\"y\",\"path\":\"plain/long\"}",
	    NULL, NULL);
	ok(strlen(res.output.data) == 511 && !res.truncated,
	    "500 characters are shown whole (%zu)", strlen(res.output.data));
	p = want + snprintf(want, sizeof(want), "600.txt:1: ");
	for (i = 0; i < 500; i++)
		p += snprintf(p, 3, "\xc3\xa9");
	snprintf(p, sizeof(want) - (size_t)(p - want), "... [truncated]\n\n"
	    "[Some lines truncated to 500 chars. Use read tool to see full "
	    "lines]");
	is_run(tool_grep, "{\"pattern\":\"\xc3\xa9\",\"path\":\"plain/long\"}",
	    want, "600 characters are cut to 500, not 500 bytes");

	is_run(tool_grep, "{\"pattern\":\"hit\",\"glob\":\"*.{c,h}\","
	    "\"path\":\"plain/g\"}", "a.c:1: hit\nb.h:1: hit\nsub/d.c:1: hit",
	    "glob with braces, names at any depth");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"glob\":\"sub/*.c\","
	    "\"path\":\"plain/g\"}", "sub/d.c:1: hit", "glob with a '/'");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"glob\":\"!*.c\","
	    "\"path\":\"plain/g\"}",
	    "b.h:1: hit\nc.txt:1: hit\nsub/e.log:1: hit",
	    "!glob excludes");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"glob\":\"!sub\","
	    "\"path\":\"plain/g\"}", "a.c:1: hit\nb.h:1: hit\nc.txt:1: hit",
	    "!dir prunes");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"glob\":\"*.txt\","
	    "\"path\":\"plain/case\"}", "readme.txt:1: hit",
	    "grep's glob minds case, as rg's");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"plain/links\"}",
	    "real.txt:1: hit\ntofile:1: hit",
	    "a symlinked file is searched, loops are not followed");
	is_run(tool_find, "{\"pattern\":\"*\",\"path\":\"plain/links\"}",
	    "broken\nloop\nreal.txt\nself\ntofile\nup",
	    "find lists symlinks as files and does not enter them");
	is_run(tool_find, "{\"pattern\":\"*.skip\",\"path\":\"\"}",
	    "plain/deep/keep.skip", "an empty path is the workspace");
	is_run(tool_grep, "{\"pattern\":\"zzz\",\"path\":\"plain\"}",
	    "No matches found", "nothing found");
	ok(res.error_code == NULL && !res.truncated, "is a success");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"nope\"}",
	    "Path not found: nope", "grep in nothing");
	is_str(res.error_code, "not_found", "as not_found");
	is_run(tool_grep, "{\"pattern\":\"hit\",\"path\":\"plain\","
	    "\"context\":-1}", "context must be a whole number of at least 0.",
	    "context -1");
	test_unreadable();
}

int
main(void)
{
	char tmpl[] = "/tmp/pi-search-XXXXXX";
	const char *dir;

	tool_result_init(&res);
	/* Open to all, so that nobody can walk it (test_unreadable). */
	if ((dir = mkdtemp(tmpl)) == NULL || chmod(dir, 0755) == -1 ||
	    chdir(dir) == -1) {
		diag("mkdtemp: %s", strerror(errno));
		return 1;
	}
	make_repo();
	make_plain();
	test_repo();
	test_grep();
	test_case();
	tool_result_release(&res);
	if (chdir("/") == 0)
		rm_rf(dir);
	return done_testing();
}
