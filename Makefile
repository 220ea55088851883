.POSIX:
.SUFFIXES:
.SUFFIXES: .c .o .t

# pi: small programs that speak NDJSON.  See README.md and man/pi.7.

CC = cc
CFLAGS = -O2 -g
WARN = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wwrite-strings -Wvla
CPPFLAGS_ALL = -std=c11 -D_POSIX_C_SOURCE=200809L -Ilib $(CPPFLAGS)
PREFIX = /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions

LIBOBJ = lib/buf.o lib/catalog.o lib/config.o lib/context.o lib/event.o \
	lib/http.o lib/jsonx.o lib/llm.o lib/ndjson.o lib/provider.o \
	lib/provider_anthropic.o lib/provider_faux.o lib/provider_google.o \
	lib/provider_openai.o lib/provider_responses.o lib/record.o lib/reply.o \
	lib/schema.o lib/sse.o lib/utf8.o lib/util.o lib/models_data.o \
	lib/tools.o lib/tool_fs.o lib/tool_edit.o lib/tool_search.o \
	lib/tool_ls.o lib/udiff.o \
	lib/truncate.o lib/validate.o lib/pathmatch.o lib/cgroup.o \
	lib/confine.o lib/denylist.o lib/landlock.o lib/mountview.o \
	lib/sandbox.o lib/sandbox_child.o lib/capture.o lib/tooldir.o lib/walk.o \
	lib/retrans.o lib/toolcall.o lib/toolrun.o \
	lib/store.o lib/projection.o lib/pifile.o lib/proc.o lib/render.o \
	lib/curlfn.o
HDR = lib/buf.h lib/catalog.h lib/config.h lib/context.h lib/event.h \
	lib/http.h lib/jsonx.h lib/llm.h lib/ndjson.h lib/provider.h \
	lib/record.h lib/reply.h lib/schema.h lib/sse.h lib/utf8.h lib/util.h \
	lib/tools.h lib/truncate.h lib/validate.h lib/pathmatch.h lib/cgroup.h \
	lib/confine.h lib/denylist.h lib/landlock.h lib/mountview.h \
	lib/sandbox.h lib/capture.h lib/tooldir.h \
	lib/walk.h lib/retrans.h lib/udiff.h lib/toolcall.h \
	lib/toolrun.h lib/banned.h lib/store.h lib/projection.h lib/pifile.h lib/proc.h lib/render.h \
	lib/curlfn.h
PROGS = bin/pi bin/pi-llm bin/pi-tool bin/pi-sess bin/pi-loop bin/pi-view
LOOPOBJ = cmd/pi-loop/pi-loop.o cmd/pi-loop/stage.o cmd/pi-loop/turn.o \
	cmd/pi-loop/tools.o cmd/pi-loop/rpc.o cmd/pi-loop/compact.o \
	cmd/pi-loop/prompt.o
SESSOBJ = cmd/pi-sess/pi-sess.o cmd/pi-sess/read.o cmd/pi-sess/write.o \
	cmd/pi-sess/append.o cmd/pi-sess/port.o
UNIT = tests/unit/buf.t tests/unit/ndjson.t tests/unit/sse.t \
	tests/unit/utf8.t tests/unit/reply.t tests/unit/tools_fs.t \
	tests/unit/validate.t tests/unit/truncate.t tests/unit/pathmatch.t \
	tests/unit/tools_search.t tests/unit/retrans.t tests/unit/udiff.t
MAN1 = man/pi.1 man/pi-llm.1 man/pi-loop.1 man/pi-sess.1 man/pi-tool.1 \
	man/pi-view.1
MAN5 = man/pi-events.5 man/pi-models.5 man/pi-session.5
MAN7 = man/pi.7

all: $(PROGS)

.c.o:
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -c $< -o $@

$(LIBOBJ): $(HDR)

# The model table is data (share/models.ndjson), built in as a string.
lib/models_data.c: share/models.ndjson
	{ echo '/* Made by make from share/models.ndjson: edit that. */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const char *const catalog_lines[];'; \
	  echo 'const char *const catalog_lines[] = {'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/",/' \
		share/models.ndjson; echo 'NULL };'; } >$@

lib/libpi.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

cmd/pi.o cmd/pi-llm.o cmd/pi-tool.o cmd/pi-view.o: $(HDR)

bin/pi: cmd/pi.o lib/libpi.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ cmd/pi.o lib/libpi.a

bin/pi-view: cmd/pi-view.o lib/libpi.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ cmd/pi-view.o lib/libpi.a -ljson-c

# pi-llm loads libcurl when a call goes out (lib/curlfn.h), so a run of
# the faux provider or a replay starts without it.
bin/pi-llm: cmd/pi-llm.o lib/libpi.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ cmd/pi-llm.o lib/libpi.a -ljson-c

$(SESSOBJ): $(HDR) cmd/pi-sess/sess.h
$(LOOPOBJ): $(HDR) cmd/pi-loop/loop.h

bin/pi-loop: $(LOOPOBJ) lib/libpi.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(LOOPOBJ) lib/libpi.a -ljson-c

bin/pi-sess: $(SESSOBJ) lib/libpi.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(SESSOBJ) lib/libpi.a \
		-lsqlite3 -ljson-c

bin/pi-tool: cmd/pi-tool.o lib/libpi.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ cmd/pi-tool.o lib/libpi.a \
		-lseccomp -ljson-c

.c.t:
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< \
		lib/libpi.a -lcurl -ljson-c -lseccomp -lsqlite3

$(UNIT): tests/unit/tap.h lib/libpi.a $(HDR)

# Helpers the pi-tool tests run inside and around the sandbox.  They are
# instruments, not subjects: never built with sanitizers, which cannot
# start under the address-space limit some tests set.
HELPERS = tests/helper/escape tests/helper/nosys
HELPER_CFLAGS = -O2 -g

tests/helper/escape: tests/helper/escape.c
	$(CC) $(HELPER_CFLAGS) -o $@ tests/helper/escape.c

tests/helper/nosys: tests/helper/nosys.c
	$(CC) $(HELPER_CFLAGS) -o $@ tests/helper/nosys.c -lseccomp

test: all $(UNIT) $(HELPERS)
	tests/run.sh

check:
	$(MAKE) clean
	$(MAKE) CFLAGS='-O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-Werror' LDFLAGS='-fsanitize=address,undefined' test

BENCH = tests/bench/runstat tests/bench/parse tests/bench/linked

tests/bench/runstat: tests/bench/runstat.c
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ \
		tests/bench/runstat.c

tests/bench/parse: tests/bench/parse.c lib/libpi.a $(HDR)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ \
		tests/bench/parse.c lib/libpi.a -lcurl -ljson-c

tests/bench/linked: tests/bench/linked.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/bench/linked.c \
		-Wl,--no-as-needed -lcurl -ljson-c

bench: all $(BENCH)
	scripts/bench

lint:
	scripts/manlint $(MAN1) $(MAN5) $(MAN7)
	! grep -nE '\<(strcpy|strcat|strncpy|sprintf|vsprintf|strtok|gets|atoi|atol|gmtime|localtime|mktemp|tmpnam|system|popen)\(' \
		cmd/*.c cmd/*/*.c lib/*.c | grep -v 'lib/banned.h'

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	install -m 0755 $(PROGS) $(DESTDIR)$(BINDIR)
	install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(MAN7) $(DESTDIR)$(MANDIR)/man7
	mkdir -p $(DESTDIR)$(BASHCOMPDIR)
	for f in $(PROGS); do install -m 0644 share/completions/pi.bash \
		$(DESTDIR)$(BASHCOMPDIR)/$${f#bin/}; done

uninstall:
	for f in $(PROGS); do rm -f $(DESTDIR)$(BINDIR)/$${f#bin/}; done
	for f in $(MAN1); do rm -f $(DESTDIR)$(MANDIR)/man1/$${f#man/}; done
	for f in $(MAN5); do rm -f $(DESTDIR)$(MANDIR)/man5/$${f#man/}; done
	for f in $(MAN7); do rm -f $(DESTDIR)$(MANDIR)/man7/$${f#man/}; done
	for f in $(PROGS); do rm -f $(DESTDIR)$(BASHCOMPDIR)/$${f#bin/}; done

clean:
	rm -f bin/pi-* cmd/*.o cmd/*/*.o lib/*.o lib/libpi.a lib/models_data.c tests/unit/*.t $(BENCH) \
		$(HELPERS)
	rm -rf tests/out

.PHONY: all test check bench lint install uninstall clean
