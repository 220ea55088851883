#!/bin/sh
# pi-tool escape suite, pi's own files: the sessions database wherever
# it is (PI_SESSIONS_DB, or --deny-read as pi-loop gives it) with its
# SQLite files, and the full outputs of other workspaces and sessions.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 8

# Everything here is under $TMP, which the private /tmp hides: each call
# shows $TMP, as a database or a TMPDIR on a shared file system is seen.
SHOW="--allow-read $TMP"
no_secret() { ! out | grep -q -- "SECRET-"; }

mkdir -p "$TMP/data" && chmod 755 "$TMP/data"
for f in s.db s.db-wal s.db-shm s.db-journal; do
	echo "SECRET-$f-$$" >"$TMP/data/$f"
done
mkdir -p "$TMP/data/s.db.outputs/other" &&
	echo "SECRET-output-$$" >"$TMP/data/s.db.outputs/other/c1.log"
chmod -R a+rX "$TMP/data"
[ -z "${PI_TEST_AS:-}" ] || chown "${PI_TEST_UID:-65534}" "$TMP/data/s.db.outputs"
PI_SESSIONS_DB=$TMP/data/s.db
export PI_SESSIONS_DB
escape 'PI_SESSIONS_DB: the database, its -wal, -shm and -journal, and its outputs' \
	"cat $TMP/data/s.db*; cat $TMP/data/s.db.outputs/*/*; ls -R $TMP/data; ls $TMP" \
	"no_secret && out | grep -qx ws" $SHOW
unset PI_SESSIONS_DB
escape '--deny-read, as pi-loop names a database given by -d' \
	"cat $TMP/data/s.db $TMP/data/s.db-wal $TMP/data/s.db-shm" no_secret $SHOW \
	--deny-read "$TMP/data/s.db" --deny-read "$TMP/data/s.db-wal" \
	--deny-read "$TMP/data/s.db-shm"

# A session's outputs, as pi-loop gives them: its own directory shown,
# the others' hidden.
mine=$TMP/data/s.db.outputs/mine
check 'a session sees its own full outputs' "
	tool bash '{\"command\":\"seq 1 100000\"}' $SHOW --deny-read '$TMP/data/s.db.outputs' \
	    --output-dir '$mine' &&
	p=\$(jq -r 'select(.type==\"tool_execution_end\").fullOutputPath' '$TMP/ev') &&
	case \$p in '$mine'/*) ;; *) false ;; esac &&
	tool bash \"{\\\"command\\\":\\\"tail -1 \$p\\\"}\" $SHOW --deny-read '$TMP/data/s.db.outputs' \
	    --output-dir '$mine' && out | grep -qx 100000"
escape "and not another session's" \
	"cat $TMP/data/s.db.outputs/other/c1.log; ls $TMP/data/s.db.outputs" \
	'no_secret && ! out | grep -qx other' $SHOW \
	--deny-read "$TMP/data/s.db.outputs" --output-dir "$mine"

# Without --output-dir: one directory per workspace, in TMPDIR.
TMPDIR=$TMP/td
mkdir -p "$TMPDIR" "$TMP/wsb"
[ -z "${PI_TEST_AS:-}" ] || chown "${PI_TEST_UID:-65534}" "$TMPDIR" "$TMP/wsb"
export TMPDIR
check 'a full output is kept, in a directory of its workspace' "
	tool bash '{\"command\":\"seq 1 100000; echo SECRET-of-ws-a-$$\"}' $SHOW &&
	p=\$(jq -r 'select(.type==\"tool_execution_end\").fullOutputPath' '$TMP/ev') &&
	echo \"\$p\" >'$TMP/path-a' && grep -q SECRET-of-ws-a \"\$p\" &&
	case \$p in '$TMPDIR'/pi-tool-output.*/*/*) ;; *) echo \"\$p\"; false ;; esac"
escape "another workspace does not see it, even with TMPDIR shown" \
	"cat \$(cat $TMP/path-a); grep -rs SECRET-of $TMPDIR; ls -R $TMPDIR" \
	no_secret $SHOW -w "$TMP/wsb"
check "the workspace itself reads it back" "
	tool bash '{\"command\":\"tail -1 '\"\$(cat '$TMP/path-a')\"'\"}' $SHOW &&
	out | grep -q SECRET-of-ws-a"
check 'a directory for outputs that others may read is refused' "
	mkdir -p '$TMP/open' && chmod 755 '$TMP/open' &&
	tool bash '{\"command\":\"seq 1 100000\"}' --output-dir '$TMP/open' &&
	ended '.truncated and (has(\"fullOutputPath\") | not)' &&
	out | grep -q 'only we may read'"
done_testing
