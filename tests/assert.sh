# assert.sh: small predicates for check snippets; sourced by lib.sh.

# jqs FILE FILTER: FILE is NDJSON and FILTER holds over all its lines
# (jq -s); on failure FILE is shown, cut short, since some are large.
jqs() {
	jq_lines "$1" && jq -se "$2" "$1" >/dev/null ||
		{ echo "--- $1:"; head -c 2000 "$1"; return 1; }
}

# is GOT WANT: equal strings, saying both when they are not.
is() { [ "$1" = "$2" ] || { echo "got '$1', expected '$2'"; return 1; }; }
