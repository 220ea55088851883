#!/bin/sh
# pi-tool escape suite, secrets and privileges: credential files, the
# environment, inherited descriptors, capabilities, setuid, the kernel's
# riskier doors, the terminal, and option injection into grep.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 20

tool_helper
E=.bin/escape
# A home full of secrets, shown to the sandbox; pi's own directory in it.
H=$TMP/home
mkdir -p "$H/.ssh" "$H/.aws" "$H/.config/gh" "$H/.docker" "$H/.kube" \
	"$H/.gnupg" "$H/.pi"
echo "ssh-secret-$$" >"$H/.ssh/id_ed25519"
echo "aws-secret-$$" >"$H/.aws/credentials"
echo "gh-secret-$$" >"$H/.config/gh/hosts.yml"
echo "docker-secret-$$" >"$H/.docker/config.json"
echo "kube-secret-$$" >"$H/.kube/config"
echo "gpg-secret-$$" >"$H/.gnupg/private"
echo "netrc-secret-$$" >"$H/.netrc"
echo "pi-secret-$$" >"$H/.pi/auth.json"
echo "not a secret" >"$H/notes.txt"
chmod -R a+rX "$H"
HOME=$H PI_HOME=$H/.pi
export HOME PI_HOME
no_secret() { ! out | grep -q -- "-secret-$$"; }

escape 'read the credential files of $HOME' \
	"cat ~/notes.txt; cat ~/.ssh/* ~/.aws/credentials ~/.config/gh/hosts.yml ~/.docker/config.json ~/.kube/config ~/.gnupg/* ~/.netrc ~/.pi/auth.json" \
	"no_secret && out | grep -qx 'not a secret'" --allow-read "$H"
escape 'find them by listing' "ls -la ~/.ssh; grep -r secret ~ 2>&1" \
	no_secret --allow-read "$H"
check 'the read tool, too, runs in the sandbox' \
	"tool read '{\"file_path\":\"$H/.ssh/id_ed25519\"}' --allow-read '$H'; no_secret && ended '.success == false'"
check 'and --allow-read of the directory itself lifts the mask' \
	"tool read '{\"file_path\":\"$H/.ssh/id_ed25519\"}' --allow-read '$H' --allow-read '$H/.ssh'; out | grep -q ssh-secret-$$"
if [ "$(id -u)" -eq 0 ] && [ -s /etc/shadow ]; then
	shadow=$(head -1 /etc/shadow)
	escape '/etc/shadow (uid 0 owns it, with no capability needed)' \
		'cat /etc/shadow' "! out | grep -qF '$shadow'"
else
	skip '/etc/shadow' 'not root, or no /etc/shadow'
fi

# Keys in pi-tool's own environment never reach the command.
OPENAI_API_KEY=sk-secret-$$ ANTHROPIC_API_KEY=ant-secret-$$ \
GITHUB_TOKEN=gh-secret-$$ AWS_SECRET_ACCESS_KEY=aws-secret-$$ \
MY_PASSWORD=pw-secret-$$ PI_API_KEY=pi-secret-$$
export OPENAI_API_KEY ANTHROPIC_API_KEY GITHUB_TOKEN AWS_SECRET_ACCESS_KEY \
	MY_PASSWORD PI_API_KEY
escape 'secrets in the environment' 'env; echo "$OPENAI_API_KEY"' no_secret
escape 'secrets in /proc/*/environ' \
	'cat /proc/[0-9]*/environ | tr "\0" "\n"; tr -cd "[:print:]\n" </proc/1/environ' no_secret
escape 'secrets in the memory of process 1' \
	'grep -a secret /proc/1/environ /proc/1/cmdline /proc/1/mem 2>&1 | head -c 300' \
	no_secret
check 'secrets of /proc/self/environ, through the read tool' \
	"tool read '{\"file_path\":\"/proc/self/environ\"}'; no_secret"
check 'and through grep' \
	"tool grep '{\"pattern\":\"secret\",\"path\":\"/proc/self\"}'; no_secret"
unset OPENAI_API_KEY ANTHROPIC_API_KEY GITHUB_TOKEN AWS_SECRET_ACCESS_KEY \
	MY_PASSWORD PI_API_KEY

# Descriptors pi-tool was started with stay outside.
echo "fd-secret-$$" >"$TMP/outside/fdsecret"
: >"$TMP/outside/fdlog"
check 'inherited descriptors: none reaches the command' '
	printf "%s\n" "{\"toolCallId\":\"t\",\"toolName\":\"bash\",\"input\":{\"command\":\"echo AL\\\"\\\"IVE; .bin/escape fds; cat <&5; cat /proc/self/fd/5; echo x >&6; echo x > /dev/fd/6\"}}" |
	pi-tool -w "$WS" >"$TMP/ev" 5<"$TMP/outside/fdsecret" 6>>"$TMP/outside/fdlog"
	out | grep -qx ALIVE && out | grep -qx "fds done" && ! out | grep -q "^fd " &&
	no_secret && [ ! -s "$TMP/outside/fdlog" ]'

escape 'no capability in any set, no_new_privs, a seccomp filter' "$E caps" \
	"out | grep -Eq '^CapEff:.0+\$' && out | grep -Eq '^CapPrm:.0+\$' && out | grep -Eq '^CapBnd:.0+\$' && out | grep -Eq '^CapAmb:.0+\$' && out | grep -Eq '^CapInh:.0+\$' && out | grep -q '^NoNewPrivs:.1' && out | grep -q '^Seccomp:.2'"
# A setuid-root copy of the helper: running it gains nothing.
mkdir -p "$TMP/outside/suid"
cp "$ROOT/tests/helper/escape" "$TMP/outside/suid/escape"
chown 0:0 "$TMP/outside/suid/escape" && chmod 4755 "$TMP/outside/suid/escape"
chmod 755 "$TMP/outside/suid"
escape 'a setuid-root binary gains nothing' \
	"$TMP/outside/suid/escape caps" \
	"out | grep -Eq '^CapEff:.0+\$' && out | grep -q \"^Uid:.$(${PI_TEST_AS:-} id -u)\"" \
	--allow-read "$TMP/outside/suid"
escape 'add a key to the kernel keyring' "$E keyring" \
	"out | grep -q '^blocked: add_key'"
escape 'make a user namespace (to get capabilities back)' \
	"$E unshare; unshare -r id" "out | grep -q '^blocked: unshare' && ! out | grep -q 'uid=0(root) gid=0(root) groups=0'"
escape 'mount anything' "$E mount" "out | grep -q '^blocked: mount'"
escape 'io_uring (it opens files past every filter)' "$E io_uring" \
	"out | grep -q '^blocked: io_uring'"
escape 'load a bpf program' "$E bpf" "out | grep -q '^blocked: bpf'"

# TIOCSTI: text pushed into the terminal pi-tool runs on would be typed
# into the user's shell.  Run pi-tool on a pty and read what reached it.
check 'TIOCSTI into the terminal pi-tool runs on' '
	python3 - "$WS" >tty.out <<-"EOF"
	import os, pty, sys
	pid, fd = pty.fork()
	if pid == 0:
	    call = "{\"toolCallId\":\"t\",\"toolName\":\"bash\",\"input\":{\"command\":\"echo AL\\\"\\\"IVE; .bin/escape tiocsti 0 INJECTED; .bin/escape tiocsti 2 INJECTED; .bin/escape tiocsti tty INJECTED\"}}\n"
	    r, w = os.pipe()
	    os.write(w, call.encode()); os.close(w); os.dup2(r, 0)
	    os.execvp("pi-tool", ["pi-tool", "-w", sys.argv[1]])
	data = b""
	while True:
	    try:
	        chunk = os.read(fd, 65536)
	    except OSError:
	        break
	    if not chunk:
	        break
	    data += chunk
	os.waitpid(pid, 0)
	sys.stdout.write(data.decode(errors="replace"))
	EOF
	grep -q ALIVE tty.out && ! grep -q "^INJECTED" tty.out &&
	! grep -q "\"content\":\"open" tty.out'

# grep is ours, not grep(1): an option in the pattern is just text.
check 'option injection into grep' "
	echo 'a --pre line' > '$WS/f.txt' &&
	tool grep '{\"pattern\":\"--pre=touch $TMP/outside/pwned\",\"path\":\".\"}' &&
	tool grep '{\"pattern\":\"-f/etc/passwd\"}' &&
	tool grep '{\"pattern\":\"--pre\"}' && out | grep -q 'f.txt:1: a --pre line' &&
	[ ! -e '$TMP/outside/pwned' ]"
done_testing
