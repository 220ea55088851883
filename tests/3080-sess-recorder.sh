#!/bin/sh
# The recorder (pi-sess append --follow) keeps storing to the end of its
# input whatever fails on the way: a reader gone from stdout, entries
# the disk cannot take; it reports each failure and says at the end how
# it went.  A failure of the database says its real cause (disk full,
# read-only file system, permission denied), for lock too, whose exit
# 75 means locked or busy only.  Databases are made 0600 whatever the
# umask, their directories 0700.
. "$(dirname "$0")/lib.sh"
plan 21
unset PI_SESSIONS_DB

user() { printf '{"role":"user","content":"%s"}\n' "$@"; }
p=$(head -c 3000 /dev/zero | tr '\0' y)
i=0
while [ $i -lt 200 ]; do
	i=$((i + 1))
	printf '{"type":"message_end","messageId":"m%d","message":{"role":"user","content":"%d %s"}}\n' $i $i "$p"
done >feed

# A reader that is gone before the first answer: every answer fails.
S=$(pi-sess -d s.db new) || exit 1
noreader() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)' "$@"
}
check 'stdout gone: the recorder still stores all 200 lines, exit 141' '
	noreader pi-sess -d s.db append --follow "$S" <feed 2>err; rc=$?; cat err
	is "$rc" 141 && is "$(pi-sess -d s.db log "$S" | wc -l)" 200'
check 'in order, once each' '
	pi-sess -d s.db log "$S" | jq -r ".message.content" | cut -d" " -f1 >got &&
	seq 200 >want && diff -u want got'
check 'saying so once on stderr' '
	is "$(grep -c "stdout: Broken pipe: storing the rest of stdin unanswered" err)" 1'
check_exit 'without --follow, a reader gone ends the run: exit 141' 141 \
	'noreader pi-sess -d s.db append "$S" <feed'

# Entries the disk cannot take (a file size limit stands in for a full
# disk): each is reported, reading goes on to the end, exit 1.
F=$(pi-sess -d f.db new) || exit 1
user first | pi-sess -d f.db append "$F" >/dev/null || exit 1
check 'a file size limit: some lines stored, the others refused' '
	(trap "" XFSZ; exec prlimit --fsize=300000 pi-sess -d f.db append --follow "$F") \
	    <feed >out 2>err; rc=$?; tail -3 err
	is "$rc" 1 && n=$(jq -r .type out | grep -c "^entry$") &&
	[ "$n" -gt 0 ] && [ "$n" -lt 200 ]'
check 'an answer for every line: entry lines, then one error line each' '
	is "$(wc -l <out)" 200 &&
	jqs out "(map(select(.type == \"error\") | .line) ==
	    [range(map(select(.type == \"entry\")) | length + 1; 201)])"'
check 'each error names its line and its messageId, exit code 1' '
	jqs out "map(select(.type == \"error\")) | all(. as \$e | .code == \"io\" and
	    .exitCode == 1 and .recoverable == true and
	    .messageId == \"m\(\$e.line)\" and
	    (.message | startswith(\"stdin:\(\$e.line): not stored: \")))"'
check 'what was answered is what is stored, and the database is sound' '
	is "$(pi-sess -d f.db log "$F" | wc -l)" $((n + 1)) &&
	pi-sess -d f.db check >/dev/null'
check 'stderr counts what was not stored' '
	grep -q "^pi-sess: stdin: $((200 - n)) lines not stored" err'

# A full disk that frees up: the lines after it are stored.  A tmpfs of
# 2 MiB in a namespace of our own.
if unshare -rm true 2>/dev/null; then
	cat >full.sh <<'EOF2'
set -u
mkdir mnt && mount -t tmpfs -o size=2m tmpfs mnt || exit 99
S=$(pi-sess -d mnt/s.db new) || exit 98
head -c 4000000 /dev/zero >mnt/fill 2>/dev/null
pi-sess -d mnt/s.db lock --pid $$ "$S" 2>lock.err; echo $? >lock.rc
mkfifo fifo.in fifo.out
pi-sess -d mnt/s.db append --follow "$S" <fifo.in >fifo.out 2>err.full &
pid=$!
exec 3>fifo.in 4<fifo.out
# One line, then its answer: no line waits while the disk changes.
for i in 1 2 3; do
	printf '{"role":"user","content":"full %d %s"}\n' $i "$P" >&3
	IFS= read -r l <&4 && echo "$l" >>answers
done
rm mnt/fill
for i in 1 2 3; do
	printf '{"role":"user","content":"free %d %s"}\n' $i "$P" >&3
	IFS= read -r l <&4 && echo "$l" >>answers
done
exec 3>&-
wait $pid
echo $? >append.rc
pi-sess -d mnt/s.db context "$S" >context
EOF2
	P=$p unshare -rm sh full.sh >full.out 2>&1
	check 'a full disk: an error line for each line it refused' '
		cat full.out; jqs answers "length == 6 and (.[0:3] | all(.type == \"error\" and
		    .code == \"disk_full\" and .exitCode == 1)) and (.[3:6] | all(.type == \"entry\"))"'
	check 'saying the cause, with the line' '
		grep -q "^pi-sess: stdin:2: not stored: mnt/s.db: commit: .*(No space left on device)" err.full'
	check 'once there is room, the lines after are stored' '
		jq -r "select(.role).content" context | cut -d" " -f1-2 >got &&
		printf "free 1\nfree 2\nfree 3\n" >want && diff -u want got'
	check 'exit 1 at the end: some lines were lost' 'is "$(cat append.rc)" 1'
	check 'lock on a full disk: exit 1, saying so, not "locked"' '
		cat lock.err; is "$(cat lock.rc)" 1 &&
		grep -q "No space left on device" lock.err && ! grep -q locked lock.err'
	mkdir ro && R=$(pi-sess -d ro/s.db new) || exit 1
	unshare -rm sh -c 'mount --bind ro ro && mount -o remount,bind,ro ro &&
		pi-sess -d ro/s.db lock "$1" 2>ro.err; echo $? >ro.rc' sh "$R"
	check 'lock on a read-only file system: exit 1, saying so' '
		cat ro.err; is "$(cat ro.rc)" 1 && grep -q "(Read-only file system)" ro.err'
	user x >x.in
	check 'append there: exit 1, code read_only' '
		unshare -rm sh -c "mount --bind ro ro && mount -o remount,bind,ro ro &&
		    pi-sess -d ro/s.db append \"$R\" <x.in >ro.out; echo \$? >ro.rc"
		jqs ro.out ".[0].type == \"error\" and .[0].code == \"read_only\" and
		    .[0].exitCode == 1" && is "$(cat ro.rc)" 1'
else
	for t in 'a full disk' 'its cause' 'room again' 'exit 1' 'lock on a full disk' \
	    'lock read-only' 'append read-only'; do
		skip "$t" 'no unshare -rm (user namespaces)'
	done
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 755 perm && P=$(pi-sess -d perm/s.db new) && chmod 644 perm/s.db* &&
		chmod 755 "$TMP" || exit 1
	check 'lock where the mode says no: exit 1, permission denied' '
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    pi-sess -d perm/s.db lock "$P" 2>perm.err; rc=$?; cat perm.err
		is "$rc" 1 && grep -q "(Permission denied)" perm.err'
else
	skip 'lock where the mode says no' 'not root, or no setpriv'
fi
L=$(pi-sess -d s.db new) || exit 1
sleep 60 &
holder=$!
pi-sess -d s.db lock --pid $holder "$L" || exit 1
check 'a session held by a live run: exit 75, naming the holder' '
	pi-sess -d s.db lock "$L" 2>err; rc=$?; cat err
	is "$rc" 75 && grep -q "is locked by pid $holder" err'
kill $holder

# The files are the user's alone, whatever the umask.
mode() { stat -c %a "$1"; }
check 'made under umask 022: the directories 0700, the files 0600' '
	(umask 022 && pi-sess -d new/sub/s.db new >/dev/null) &&
	is "$(mode new)" 700 && is "$(mode new/sub)" 700 &&
	is "$(mode new/sub/s.db)" 600 && is "$(mode new/sub/s.db-wal)" 600 &&
	is "$(mode new/sub/s.db-shm)" 600'
check 'under umask 000 too' '
	(umask 000 && pi-sess -d open/s.db new >/dev/null) &&
	is "$(mode open)" 700 && is "$(mode open/s.db)" 600 &&
	is "$(mode open/s.db-wal)" 600 && is "$(mode open/s.db-shm)" 600'
check 'an existing database keeps its mode' '
	chmod 640 open/s.db && pi-sess -d open/s.db new >/dev/null &&
	is "$(mode open/s.db)" 640'

done_testing
