#!/bin/sh
# pi-tool escape suite, network and IPC: TCP, UDP, pathname and abstract
# unix sockets to listeners on the host, judged by the listeners' log.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 12

tool_helper
E=.bin/escape
H=$ROOT/tests/helper/escape
LOG=$TMP/listen.log
SOCKDIR=$TMP/outside/sock
mkdir -p "$SOCKDIR" && chmod 777 "$SOCKDIR"
: >"$LOG"
chmod 666 "$LOG"
mkfifo "$TMP/ports"
"$ROOT/tests/helper/listen" "$LOG" tcp udp "unix:$SOCKDIR/host.sock" \
	"unix:$WS/ws.sock" abstract:pi-escape-$$ >"$TMP/ports" &
LISTEN=$!
trap 'kill $LISTEN 2>/dev/null; fake_stop; rm -rf "$TMP"' EXIT
read -r ports <"$TMP/ports"
TCP=${ports#tcp=}
TCP=${TCP%% *}
UDP=${ports##*udp=}
quiet() { [ ! -s "$LOG" ]; }
# The listener logs at once, but asynchronously: wait for a line that
# must come, and be sure no other came before it.
logged() { wait_until grep -qx "$1" "$LOG"; }

# Controls: the oracle sees a connection made from outside the sandbox.
check 'control: a TCP connection from the host is logged' \
	"$H tcp $TCP >/dev/null && logged 'tcp connection'"
check 'control: a UDP datagram from the host is logged' \
	"$H udp $UDP >/dev/null && logged 'udp datagram'"
check 'control: a unix connection from the host is logged' \
	"$H unix $SOCKDIR/host.sock >/dev/null && logged 'unix connection'"
check 'control: an abstract connection from the host is logged' \
	"$H abstract pi-escape-$$ >/dev/null && logged 'abstract connection'"
: >"$LOG"

escape 'TCP to a host listener' "$E tcp $TCP" quiet
escape 'UDP to a host listener' "$E udp $UDP" quiet
escape 'a pathname unix socket of the host, shown read-only' \
	"ls $SOCKDIR; $E unix $SOCKDIR/host.sock" \
	"quiet && out | grep -qx host.sock" --allow-read "$SOCKDIR"
escape 'a pathname unix socket in the workspace itself' \
	"$E unix ws.sock" quiet
escape 'an abstract unix socket of the host' \
	"$E abstract pi-escape-$$" quiet
escape 'bash /dev/tcp' \
	"echo hi > /dev/tcp/127.0.0.1/$TCP" quiet
escape 'no interface but loopback, and it is not the host'"'"'s' \
	'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "' \
	"quiet && [ \"\$(out | sed 1d | grep -v '^\$' | grep -v 'Command')\" = lo ]"

# With --network the host is reachable: the same call is now logged, so
# the cases above could have failed.
sbash "$E tcp $TCP" --network
check 'with --network, the TCP connection arrives' "logged 'tcp connection'"
done_testing
