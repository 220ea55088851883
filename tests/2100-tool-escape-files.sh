#!/bin/sh
# pi-tool escape suite, file system: what a model's command tries in
# order to change a file outside the workspace, judged on the host.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 34

OUT=$TMP/outside
# Outside the workspace, and shown to the sandbox (read-only) so that
# every attempt below has a real target.
RO="--allow-read $OUT"
echo original >"$OUT/file"
chmod 644 "$OUT/file"
touch -d 2020-01-02 "$OUT/file"
mkdir "$OUT/dir"
ln -s "$OUT/file" "$WS/link-to-file"
ln -s "$OUT/dir" "$WS/link-to-dir"
before=$(digest "$OUT/file")
same() { [ "$(digest "$OUT/file")" = "$before" ]; }
absent() { for f; do [ ! -e "$f" ] && [ ! -L "$f" ] || return 1; done; }

escape 'the target outside is visible, read-only' \
	"cat $OUT/file; echo x > $OUT/new" \
	"out | grep -qx original && absent $OUT/new" $RO
escape 'overwrite a file outside' "echo pwned > $OUT/file" same $RO
escape 'append to a file outside' "echo pwned >> $OUT/file" same $RO
escape 'truncate a file outside' \
	"truncate -s 0 $OUT/file; : > $OUT/file" same $RO
escape 'chmod a file outside' "chmod 777 $OUT/file" same $RO
escape 'chown a file outside' "chown 12345:12345 $OUT/file" same $RO
escape 'touch -d a file outside' "touch -d 2030-01-01 $OUT/file" same $RO
escape 'remove a file outside' "rm -f $OUT/file" same $RO
escape 'make a directory outside' "mkdir $OUT/newdir" \
	"absent $OUT/newdir" $RO
escape 'write through a symlink to a file outside' \
	'echo pwned > link-to-file' same $RO
escape 'create through a symlink to a directory outside' \
	'echo pwned > link-to-dir/new; mkdir link-to-dir/sub' \
	"absent $OUT/dir/new $OUT/dir/sub" $RO
escape 'hard-link a file outside into the workspace, then write it' \
	"ln $OUT/file hard; echo pwned >> hard" \
	"same && [ \$(stat -c %h $OUT/file) = 1 ]" $RO
escape 'rename a file outside into the workspace' \
	"mv $OUT/file stolen" same $RO
escape 'rename a workspace file to outside' \
	"echo mine > mine; mv mine $OUT/mine; cp mine $OUT/copy" \
	"absent $OUT/mine $OUT/copy" $RO
escape 'write under /etc' 'echo pwned > /etc/pi-escape-test' \
	'absent /etc/pi-escape-test'
hostname_mode=$(stat -c %a /etc/hostname)
escape 'chmod a system file' 'chmod 600 /etc/hostname' \
	'[ "$(stat -c %a /etc/hostname)" = "$hostname_mode" ]'
escape 'write through /proc/self/root' \
	"echo pwned > /proc/self/root$OUT/new" "absent $OUT/new" $RO
escape 'write through /proc/1/root' \
	"ls /proc/1/root$OUT; echo pwned > /proc/1/root$OUT/new" \
	"absent $OUT/new" $RO
escape 'write through /proc/self/cwd/..' \
	'echo pwned > /proc/self/cwd/../escaped' "absent $TMP/escaped"
escape 'mount a tmpfs over a read-only directory' \
	"mount -t tmpfs none $OUT; echo pwned > $OUT/new" \
	"absent $OUT/new" $RO
mkdir -p "$WS/.git/hooks"
printf '[core]\n\tbare = false\n' >"$WS/.git/config"
git_before=$(digest "$WS/.git/config")
escape 'plant a git hook' \
	'echo "touch /tmp/pwned" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit' \
	"absent $WS/.git/hooks/pre-commit"
escape 'point git config at other hooks' \
	'printf "[core]\n\thooksPath = /tmp\n" >> .git/config' \
	'[ "$(digest $WS/.git/config)" = "$git_before" ]'
escape 'move .git away and make a new one' \
	'mv .git .git-old; mkdir -p .git/hooks; echo evil > .git/hooks/post-checkout' \
	"absent $WS/.git-old $WS/.git/hooks/post-checkout && [ -d $WS/.git ]"
echo "host secret" >"/tmp/pi-host-secret.$$"
escape 'private /tmp: the host files are not there, writes stay in' \
	"cat /tmp/pi-host-secret.$$; echo x > /tmp/pi-sandbox.$$; ls /tmp/pi-sandbox.$$" \
	"! out | grep -q 'host secret' && absent /tmp/pi-sandbox.$$ && out | grep -q /tmp/pi-sandbox"
rm -f "/tmp/pi-host-secret.$$"
if [ -d /dev/shm ] && echo "host secret" >"/dev/shm/pi-host-secret.$$"; then
	escape 'private /dev/shm' \
		"cat /dev/shm/pi-host-secret.$$; echo x > /dev/shm/pi-sandbox.$$" \
		"! out | grep -q 'host secret' && absent /dev/shm/pi-sandbox.$$"
	rm -f "/dev/shm/pi-host-secret.$$"
else
	skip 'private /dev/shm' 'no /dev/shm on this host'
fi
escape 'private /var/tmp' "echo x > /var/tmp/pi-sandbox.$$" \
	"absent /var/tmp/pi-sandbox.$$"
escape 'private /run: no host socket or file is there' \
	"ls -A /run | wc -l; echo x > /run/pi-sandbox.$$" \
	"absent /run/pi-sandbox.$$ && out | sed -n 2p | grep -qx 0"
escape 'make device nodes' \
	'mknod blk b 7 0; mknod chr c 1 3; ls -l' \
	"[ -z \"\$(find $WS -type b -o -type c)\" ]"
escape 'open a disk: /dev holds only the harmless nodes' \
	'ls /dev | tr "\n" " "' \
	'out | grep -qx "ALIVE" && ! out | grep -qE "(^| )(sd|vd|nvme|loop|mem|kmem|port)"'
core=$(cat /proc/sys/kernel/core_pattern)
escape 'write a sysctl (core_pattern runs as root on a crash)' \
	'echo "|/tmp/pwn" > /proc/sys/kernel/core_pattern' \
	'[ "$(cat /proc/sys/kernel/core_pattern)" = "$core" ]'
escape 'trigger sysrq' 'echo h > /proc/sysrq-trigger && echo wrote' \
	"! out | grep -qx wrote"
escape 'write below /sys' \
	'echo 1 > /sys/kernel/mm/transparent_hugepage/enabled; echo $$ > /sys/fs/cgroup/pids/cgroup.procs' \
	"[ \$(out | grep -c 'Read-only file system') -eq 2 ]"
host=$(hostname)
escape 'change the host name' 'hostname pwned; echo done' \
	'[ "$(hostname)" = "$host" ]'
escape 'chroot out of the view' \
	"mkdir -p jail && chroot jail /bin/true; cd /proc/1/cwd && pwd" \
	"! out | grep -qx /"
done_testing
