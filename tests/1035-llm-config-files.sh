#!/bin/sh
# pi-llm's config files (models.json, auth.json) are opened without
# blocking and must be regular files: a FIFO hung pi-llm for ever, and
# a directory or a device got a message about its mode or its size.
# Each gives exit 4 at once, with a message that says what it is.
. "$(dirname "$0")/lib.sh"
plan 16
mkdir -p "$PI_HOME"
# llm: pi-llm reads its config and lists the models; a hang is 124.
llm() { timeout 20 pi-llm --list-models gpt-4.1 >out 2>err; }
said() { grep -q "pi-llm: '$PI_HOME/$1' is $2; pi-llm reads its configuration only from regular files" err ||
	{ cat err; false; }; }
clear() { rm -rf "$PI_HOME/models.json" "$PI_HOME/auth.json"; }

for f in models.json auth.json; do
	clear && mkfifo -m 600 "$PI_HOME/$f"
	check_exit "$f a FIFO: exit 4, no hang" 4 llm
	check "... named as a FIFO" "said $f 'a FIFO'"
	clear && mkdir -m 700 "$PI_HOME/$f"
	check_exit "$f a directory: exit 4" 4 llm
	check "... named as a directory" "said $f 'a directory'"
	clear && ln -s /dev/zero "$PI_HOME/$f"
	check_exit "$f a link to /dev/zero: exit 4" 4 llm
	check "... named as a device" "said $f 'a device'"
done
# Regular files are read as before, auth.json only when private.
clear && echo '{"providers":{}}' >"$PI_HOME/models.json" &&
	echo '{}' >"$PI_HOME/auth.json" && chmod 644 "$PI_HOME/auth.json"
check_exit 'auth.json that others may read: exit 4' 4 llm
check '... with the way out' "grep -q 'may be read by others (mode 644): run chmod 600 on it' err"
chmod 600 "$PI_HOME/auth.json"
check_exit 'regular files: read, exit 0' 0 llm
check '... and the models listed' "grep -q gpt-4.1 out"
done_testing
