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

# lib/ is one folder and one archive per layer (STYLE.md section 1); each
# program's link line names the layers it is made of, so a call across
# layers that should not exist fails to link.
COREOBJ = lib/core/buf.o lib/core/context.o lib/core/event.o \
	lib/core/jsonx.o lib/core/ndjson.o lib/core/place.o lib/core/proc.o \
	lib/core/rmtree.o lib/core/utf8.o lib/core/util.o
LLMOBJ = lib/llm/catalog.o lib/llm/config.o lib/llm/curlfn.o \
	lib/llm/http.o lib/llm/llm.o lib/llm/models_data.o lib/llm/provider.o \
	lib/llm/provider_anthropic.o lib/llm/provider_faux.o \
	lib/llm/provider_google.o lib/llm/provider_openai.o \
	lib/llm/provider_responses.o lib/llm/record.o lib/llm/reply.o \
	lib/llm/schema.o lib/llm/sse.o
SANDBOXOBJ = lib/sandbox/cgroup.o lib/sandbox/confine.o \
	lib/sandbox/denylist.o lib/sandbox/gitfile.o lib/sandbox/gitfind.o \
	lib/sandbox/gitguard.o lib/sandbox/landlock.o lib/sandbox/mountview.o \
	lib/sandbox/sandbox.o lib/sandbox/sandbox_child.o
TOOLOBJ = lib/tool/capture.o lib/tool/pathmatch.o lib/tool/retrans.o \
	lib/tool/tool_edit.o lib/tool/tool_fs.o lib/tool/tool_ls.o \
	lib/tool/tool_search.o lib/tool/toolcall.o lib/tool/tooldir.o \
	lib/tool/tools.o lib/tool/truncate.o lib/tool/udiff.o \
	lib/tool/validate.o lib/tool/walk.o lib/tool/wildmatch.o
STOREOBJ = lib/store/chain.o lib/store/check.o lib/store/entry.o \
	lib/store/pifile.o lib/store/projection.o lib/store/schema.o \
	lib/store/sql.o lib/store/store.o
LIBOBJ = $(COREOBJ) $(LLMOBJ) $(SANDBOXOBJ) $(TOOLOBJ) $(STOREOBJ)
LIBCORE = lib/core/libcore.a
LIBLLM = lib/llm/libllm.a
LIBSANDBOX = lib/sandbox/libsandbox.a
LIBTOOL = lib/tool/libtool.a
LIBSTORE = lib/store/libstore.a
LIBS_ALL = $(LIBLLM) $(LIBSTORE) $(LIBTOOL) $(LIBSANDBOX) $(LIBCORE)
HDR = lib/core/banned.h lib/core/buf.h lib/core/context.h \
	lib/core/event.h lib/core/jsonx.h lib/core/ndjson.h lib/core/place.h \
	lib/core/proc.h lib/core/rmtree.h lib/core/utf8.h lib/core/util.h \
	lib/llm/catalog.h lib/llm/config.h lib/llm/curlfn.h lib/llm/http.h \
	lib/llm/llm.h lib/llm/provider.h lib/llm/record.h lib/llm/reply.h \
	lib/llm/schema.h lib/llm/sse.h \
	lib/sandbox/cgroup.h lib/sandbox/confine.h lib/sandbox/denylist.h \
	lib/sandbox/gitfile.h lib/sandbox/gitfind.h lib/sandbox/gitguard.h \
	lib/sandbox/landlock.h lib/sandbox/mountview.h lib/sandbox/sandbox.h \
	lib/tool/capture.h lib/tool/pathmatch.h lib/tool/retrans.h \
	lib/tool/toolcall.h lib/tool/tooldir.h lib/tool/tools.h \
	lib/tool/truncate.h lib/tool/udiff.h lib/tool/validate.h \
	lib/tool/walk.h lib/tool/wildmatch.h \
	lib/store/chain.h lib/store/entry.h lib/store/pifile.h \
	lib/store/projection.h lib/store/schema.h lib/store/sql.h \
	lib/store/store.h
PROGS = bin/pi bin/pi-llm bin/pi-tool bin/pi-sess bin/pi-loop bin/pi-view
LOOPOBJ = cmd/pi-loop/pi-loop.o cmd/pi-loop/stage.o cmd/pi-loop/turn.o \
	cmd/pi-loop/tools.o cmd/pi-loop/rpc.o cmd/pi-loop/compact.o \
	cmd/pi-loop/prompt.o cmd/pi-loop/stagenv.o
SESSOBJ = cmd/pi-sess/pi-sess.o cmd/pi-sess/read.o cmd/pi-sess/write.o \
	cmd/pi-sess/append.o cmd/pi-sess/port.o
LLMPROGOBJ = cmd/pi-llm/pi-llm.o cmd/pi-llm/call.o cmd/pi-llm/serve.o
TOOLPROGOBJ = cmd/pi-tool/pi-tool.o cmd/pi-tool/toolrun.o
VIEWOBJ = cmd/pi-view/pi-view.o cmd/pi-view/render.o
UNIT = tests/unit/buf.t tests/unit/ndjson.t tests/unit/sse.t \
	tests/unit/utf8.t tests/unit/reply.t tests/unit/tools_fs.t \
	tests/unit/validate.t tests/unit/truncate.t tests/unit/pathmatch.t \
	tests/unit/tools_search.t tests/unit/retrans.t tests/unit/udiff.t \
	tests/unit/gitfile.t
MAN1 = man/pi.1 man/pi-llm.1 man/pi-loop.1 man/pi-sess.1 man/pi-tool.1 \
	man/pi-view.1
MAN5 = man/pi-events.5 man/pi-models.5 man/pi-session.5
MAN7 = man/pi.7

all: $(PROGS)

.c.o:
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) -c $< -o $@

$(LIBOBJ): $(HDR)

# The model table is data (share/models.ndjson), built in as a string.
lib/llm/models_data.c: share/models.ndjson
	{ echo '/* Made by make from share/models.ndjson: edit that. */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const char *const catalog_lines[];'; \
	  echo 'const char *const catalog_lines[] = {'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/",/' \
		share/models.ndjson; echo 'NULL };'; } >$@

$(LIBCORE): $(COREOBJ)
	rm -f $@
	ar rcs $@ $(COREOBJ)

$(LIBLLM): $(LLMOBJ)
	rm -f $@
	ar rcs $@ $(LLMOBJ)

$(LIBSANDBOX): $(SANDBOXOBJ)
	rm -f $@
	ar rcs $@ $(SANDBOXOBJ)

$(LIBTOOL): $(TOOLOBJ)
	rm -f $@
	ar rcs $@ $(TOOLOBJ)

$(LIBSTORE): $(STOREOBJ)
	rm -f $@
	ar rcs $@ $(STOREOBJ)

cmd/pi.o: $(HDR)
$(LLMPROGOBJ): $(HDR) cmd/pi-llm/call.h cmd/pi-llm/serve.h
$(SESSOBJ): $(HDR) cmd/pi-sess/sess.h
$(LOOPOBJ): $(HDR) cmd/pi-loop/loop.h
$(TOOLPROGOBJ): $(HDR) cmd/pi-tool/toolrun.h
$(VIEWOBJ): $(HDR) cmd/pi-view/render.h

bin/pi: cmd/pi.o $(LIBCORE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ cmd/pi.o $(LIBCORE)

bin/pi-view: $(VIEWOBJ) $(LIBCORE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(VIEWOBJ) $(LIBCORE) -ljson-c

# pi-llm loads libcurl when a call goes out (lib/llm/curlfn.h), so a run
# of the faux provider or a replay starts without it.
bin/pi-llm: $(LLMPROGOBJ) $(LIBLLM) $(LIBCORE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(LLMPROGOBJ) $(LIBLLM) $(LIBCORE) \
		-ljson-c

bin/pi-loop: $(LOOPOBJ) $(LIBCORE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(LOOPOBJ) $(LIBCORE) -ljson-c

bin/pi-sess: $(SESSOBJ) $(LIBSTORE) $(LIBCORE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(SESSOBJ) $(LIBSTORE) $(LIBCORE) \
		-lsqlite3 -lnettle -ljson-c

bin/pi-tool: $(TOOLPROGOBJ) $(LIBTOOL) $(LIBSANDBOX) $(LIBCORE)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TOOLPROGOBJ) $(LIBTOOL) \
		$(LIBSANDBOX) $(LIBCORE) -lseccomp -ljson-c

.c.t:
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< \
		$(LIBS_ALL) -lcurl -ljson-c -lseccomp -lsqlite3 -lnettle

$(UNIT): tests/unit/tap.h $(LIBS_ALL) $(HDR)

# Helpers the pi-tool tests run inside and around the sandbox.  They are
# instruments, not subjects: never built with sanitizers, which cannot
# start under the address-space limit some tests set.
HELPERS = tests/helper/escape tests/helper/nosys \
	tests/helper/setid
HELPER_CFLAGS = -O2 -g

tests/helper/escape: tests/helper/escape.c
	$(CC) $(HELPER_CFLAGS) -o $@ tests/helper/escape.c

tests/helper/nosys: tests/helper/nosys.c
	$(CC) $(HELPER_CFLAGS) -o $@ tests/helper/nosys.c -lseccomp

tests/helper/setid: tests/helper/setid.c
	$(CC) $(HELPER_CFLAGS) -o $@ tests/helper/setid.c

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

tests/bench/parse: tests/bench/parse.c $(LIBLLM) $(LIBCORE) $(HDR)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ \
		tests/bench/parse.c $(LIBLLM) $(LIBCORE) -lcurl -ljson-c

tests/bench/linked: tests/bench/linked.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/bench/linked.c \
		-Wl,--no-as-needed -lcurl -ljson-c

bench: all $(BENCH)
	scripts/bench

lint:
	scripts/manlint $(MAN1) $(MAN5) $(MAN7)
	! grep -nE '\<(strcpy|strcat|strncpy|sprintf|vsprintf|strtok|gets|atoi|atol|gmtime|localtime|mktemp|tmpnam|system|popen)\(' \
		cmd/*.c cmd/*/*.c lib/*/*.c

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
	rm -f bin/pi-* cmd/*.o cmd/*/*.o lib/*/*.o lib/*/*.a \
		lib/llm/models_data.c tests/unit/*.t $(BENCH) \
		$(HELPERS)
	rm -rf tests/out

.PHONY: all test check bench lint install uninstall clean
