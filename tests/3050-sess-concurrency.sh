#!/bin/sh
# pi-sess under load: writers on their own sessions and readers of the
# same database never see SQLITE_BUSY, lose or double an entry, or read
# a half-made state; writers on one session make one linear chain.
. "$(dirname "$0")/lib.sh"
plan 12
unset PI_SESSIONS_DB

W=20 M=300 R=5
# gen TAG COUNT: COUNT user messages "TAG 1" ... "TAG COUNT".
gen() {
	awk -v t="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++)
		printf "{\"role\":\"user\",\"content\":\"%s %d\"}\n", t, i }'
}
i=0
while [ $i -lt $W ]; do
	i=$((i + 1))
	pi-sess new --name "w$i" >"s$i" && gen "w$i" $M >"w$i.in" ||
		{ echo "Bail out! setting up"; exit 1; }
done

# reader R: until the writers are done, context of one writer's session
# (a consistent snapshot: as many messages as its first line says,
# "wJ 1" on, in order) and ls of all; counts its rounds and failures.
reader() {
	r_n=0 r_bad=0 r_j=$1
	while [ ! -e writers.done ]; do
		r_j=$((r_j % W + 1))
		pi-sess context "$(cat "s$r_j")" >"r$1.ctx" 2>>"r$1.err" &&
		awk -v w="w$r_j" '
			NR == 1 { if (!match($0, /"messages":[0-9]+,/)) { bad = 1; exit }
				m = substr($0, RSTART + 11, RLENGTH - 12) + 0; next }
			{ n++; if ($0 != "{\"role\":\"user\",\"content\":\"" w " " n "\"}") { bad = 1; exit } }
			# exit in a rule still runs END, whose exit decides.
			END { exit bad || n != m }' "r$1.ctx" ||
			{ r_bad=$((r_bad + 1)); cp "r$1.ctx" "r$1.bad"; }
		pi-sess ls --all >"r$1.ls" 2>>"r$1.err" &&
		[ "$(wc -l <"r$1.ls")" -eq $W ] || r_bad=$((r_bad + 1))
		r_n=$((r_n + 1))
	done
	echo "$r_n $r_bad" >"r$1.res"
}

start=$(date +%s)
i=0
while [ $i -lt $R ]; do
	i=$((i + 1))
	reader $i &
done
pids=
i=0
while [ $i -lt $W ]; do
	i=$((i + 1))
	{ pi-sess append "$(cat "s$i")" <"w$i.in" >"w$i.out" 2>"w$i.err"
	  echo $? >"w$i.rc"; } &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
touch writers.done
wait
echo "# $W writers and $R readers: $(($(date +%s) - start)) s;" \
	"reader rounds: $(cat r*.res | cut -d' ' -f1 | tr '\n' ' ')"

check "all $W writers exited 0" '
	for i in $(seq $W); do is "$(cat w$i.rc)" 0 || { cat w$i.err; return 1; }; done'
check 'none of them said busy' '! grep -il "busy\|locked" w*.err'
check "each answered $M entry lines" '
	for i in $(seq $W); do jqs w$i.out "length == $M and all(.type == \"entry\")" ||
		return 1; done'
check "every session holds its $M messages, once each, in order" '
	for i in $(seq $W); do
		pi-sess context "$(cat s$i)" | tail -n +2 >got &&
		diff "w$i.in" got >/dev/null || { echo "session $i"; diff w$i.in got | head; return 1; }
	done'
check 'and its entry count says so (the name line and the messages)' '
	pi-sess ls --all >ls && jqs ls "length == $W and all(.entries == $M + 1)"'
check "every reader went round and never failed" '
	for i in $(seq $R); do
		read -r n bad <r$i.res && echo "reader $i: $n rounds, $bad failed" &&
		[ "$n" -ge 1 ] && is "$bad" 0 && [ ! -s r$i.err ] || { cat r$i.err r$i.bad; return 1; }
	done'
check_exit 'check passes' 0 'pi-sess check'

# Ten writers on one session.
X=$(pi-sess new) || exit 1
V=10 K=150
pids=
i=0
while [ $i -lt $V ]; do
	i=$((i + 1))
	gen "v$i" $K >"v$i.in"
done
i=0
while [ $i -lt $V ]; do
	i=$((i + 1))
	{ pi-sess append "$X" <"v$i.in" >"v$i.out" 2>"v$i.err"; echo $? >"v$i.rc"; } &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
check "$V writers on one session: all exited 0" '
	for i in $(seq $V); do is "$(cat v$i.rc)" 0 || { cat v$i.err; return 1; }; done'
pi-sess log "$X" >log
echo "# on one session, the writer changed $(jq -r '.message.content | split(" ")[0]' log |
	uniq | wc -l) times in $((V * K)) entries"
check "all $((V * K)) entries stored, each writer's in its order" '
	jqs log "length == $V * $K" &&
	for i in $(seq $V); do
		jq -r ".message.content | select(startswith(\"v$i \"))" log >got &&
		jq -r .content v$i.in | diff - got >/dev/null || { echo "writer $i"; return 1; }
	done'
check 'the chain is linear: each entry'"'"'s parent the one before it' '
	jqs log ".[0].parentId == null and
	    ([range(1; length) as \$i | .[\$i].parentId == .[\$i - 1].id] | all)"'
check 'the answers are the log'"'"'s ids, each once' '
	cat v*.out | jq -r .id | sort >answered && jq -r .id log | sort >stored &&
	diff answered stored >/dev/null && [ "$(uniq answered | wc -l)" -eq $((V * K)) ]'
check_exit 'check passes' 0 'pi-sess check'

done_testing
