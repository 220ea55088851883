# fake.sh: drive tests/helper/fake-llm from a test; sourced by lib.sh.
# One server at a time, saving what it receives under $TMP/req.  Its
# stderr is kept aside and shown as "# " lines when it stops, so that a
# check that started it does not capture it.

# fake_start [OPTION...] PLAN: the port arrives through a fifo, so
# nothing sleeps; if the server dies first, read sees EOF and fake_start
# fails.
fake_start() {
	fake_stop
	rm -rf "$TMP/req" "$TMP/.fifo" && mkfifo "$TMP/.fifo" || return 1
	"$ROOT/tests/helper/fake-llm" -d "$TMP/req" "$@" \
		>"$TMP/.fifo" 2>"$TMP/.fake-err" &
	FAKE_PID=$!
	FAKE_PORT=
	read -r FAKE_PORT <"$TMP/.fifo"
	rm -f "$TMP/.fifo"
	FAKE_URL=http://127.0.0.1:$FAKE_PORT
	[ -n "$FAKE_PORT" ] || { fake_stop; return 1; }
}

fake_stop() {
	[ -z "$FAKE_PID" ] && return
	kill "$FAKE_PID" 2>/dev/null
	wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
	sed 's/^/# fake-llm: /' "$TMP/.fake-err" >&2
}

fake_requests() { cat "$TMP/req/count" 2>/dev/null || echo 0; }
# fake_count connections|handshakes|resumed
fake_count() { cat "$TMP/req/$1" 2>/dev/null || echo 0; }

fake_req() { echo "$TMP/req/req-$1.json"; }
