#!/bin/sh
# pi-tool escape suite, git: what a call writes now for git on the host
# to run later, outside any sandbox (core.fsmonitor, hooks, a common
# directory, submodules, included config), judged by running git on the
# host afterwards, as the user does, and looking for its marker.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 19

M=$TMP/outside/marker
WS2=$TMP/ws2
# git on the host, in a repository of anyone's (the suite runs as nobody
# too), as a user who has no hooks or config of their own.
hgit() {
	git -c safe.directory='*' -c user.email=u@example.com -c user.name=u \
		-c protocol.file.allow=always "$@"
}
# after DIR: the user's git status, diff and commit in DIR ran nothing
# of the sandbox's.
after() {
	(cd "$1" && hgit status >/dev/null 2>&1; hgit diff >/dev/null 2>&1
	 hgit commit -q --allow-empty -m after >/dev/null 2>&1; true)
	[ ! -e "$M" ] || { echo "git on the host ran: $(cat "$M")"; rm -f "$M"
		false; }
}
# A config that runs "echo WHY >>$M" at git's next status; fsmon prints
# a command that prints it, for the sandbox.
config() { printf '[core]\n\tfsmonitor = "echo %s >>%s;"\n' "$1" "$M"; }
fsmon() { printf "printf '[core]\\\\n\\\\tfsmonitor = \"echo %s >>%s;\"\\\\n'" "$1" "$M"; }
# writef PATH CONTENT: the write tool.
writef() {
	tool write "$(jq -nc --arg p "$1" --arg c "$2" \
		'{file_path: $p, content: $c}')"
}
# tree DIR...: every file under DIR, with its contents.
tree() { find "$@" -type f -print0 | sort -z | xargs -0 sha1sum; }

# The workspace: a repository with a submodule, a submodule five levels
# down (only the index knows it), a linked work tree, a repository of
# its own two levels down, husky's hooks, pre-commit's config, and a
# config file in the work tree that .git/config includes.
mkdir -p "$TMP/lib" "$WS2" && (
	cd "$TMP/lib" && hgit init -q && hgit commit -q --allow-empty -m lib &&
	cd "$WS" && hgit init -q && echo hello >greeting.txt &&
	mkdir -p .husky/_ && printf '#!/bin/sh\nsh .husky/pre-commit\n' \
		>.husky/_/pre-commit && printf '#!/bin/sh\ntrue\n' >.husky/pre-commit &&
	chmod 755 .husky/_/pre-commit && echo 'repos: []' >.pre-commit-config.yaml &&
	printf '[user]\n\tname = shared\n' >.gitshared &&
	hgit config core.hooksPath .husky/_ &&
	hgit config include.path ../.gitshared &&
	hgit add . && hgit commit -q -m one &&
	hgit submodule -q add "$TMP/lib" deps/lib &&
	hgit submodule -q add "$TMP/lib" a/b/c/d/e/deep &&
	hgit commit -q -m subs && hgit worktree add -q wt 2>/dev/null &&
	mkdir -p vendor && hgit init -q vendor/x &&
	hgit -C vendor/x config core.hooksPath .githooks &&
	mkdir -p store && hgit init -q --separate-git-dir="$WS/store/sep.git" sep
) >/dev/null || { echo "Bail out! cannot make the repositories"; exit 1; }
if [ -n "${PI_TEST_AS:-}" ]; then
	chown -R "${PI_TEST_UID:-65534}" "$WS" "$WS2" "$TMP/lib"
fi
after "$WS" || { echo "Bail out! the host's git runs something already"; exit 1; }
# Each case starts from this workspace (its paths are absolute: a copy
# goes back to the same place).
cp -a "$WS" "$TMP/template" || exit 1
fresh() { rm -rf "$WS" && cp -a "$TMP/template" "$WS"; }

fresh
check "the review's four writes: .git/commondir, and a common directory with core.fsmonitor" '
	writef .git/commondir "../evil
" ; writef evil/config "$(config commondir)"; writef evil/objects/.keep "";
	writef evil/refs/.keep ""; after "$WS"'
fresh
gitdirs="$WS/.git $WS/store/sep.git $WS/vendor/x/.git"
before=$(tree $gitdirs)
escape 'nothing in a git directory is writable: config, hooks, info, modules, worktrees, index, refs, objects' \
	'for f in config config.worktree commondir hooks/post-checkout info/attributes \
	    modules/deps/lib/config modules/deps/lib/hooks/pre-commit \
	    worktrees/wt/config.worktree worktrees/wt/commondir index HEAD \
	    refs/heads/evil objects/pack/x packed-refs; do
		echo x >> .git/$f; done 2>&1 | sort -u | head -3
	echo x >> store/sep.git/config; echo x >> vendor/x/.git/config
	rm -rf .git/hooks .git/modules; mv .git/config .git/config.old' \
	'[ "$(tree $gitdirs)" = "$before" ]'
fresh
head=$(hgit -C "$WS" rev-parse HEAD)
escape 'git commit, git add and git stash fail; git status, diff and log work' \
	'echo change >> greeting.txt; git status --short; git log --oneline | wc -l
	 git diff --stat; git add greeting.txt && echo ADDED
	 git commit -qam sneaky && echo COMMITTED; git stash && echo STASHED' \
	'out | grep -q "^ M greeting.txt" && out | grep -qx "$(hgit -C "$WS" log --oneline | wc -l)" &&
	 ! out | grep -qE "^(ADDED|COMMITTED|STASHED)$" &&
	 [ "$(hgit -C "$WS" rev-parse HEAD)" = "$head" ]'
fresh
# evil WHY: the sandbox makes a repository of its own, evilrepo, whose
# config runs "echo WHY >>$M".
evil() { echo "git init -q evilrepo; $(fsmon "$1") >> evilrepo/.git/config;"; }
escape 'a submodule'"'"'s .git file pointed at a repository of the model'"'"'s' \
	"$(evil submodule) echo 'gitdir: ../../evilrepo/.git' > deps/lib/.git" \
	'after "$WS"'
fresh
escape 'the submodule moved away and made again, with a .git file of the model'"'"'s' \
	"$(evil moved) mv deps/lib deps/lib.old || mv deps deps.old; mkdir -p deps/lib
	 echo 'gitdir: ../../evilrepo/.git' > deps/lib/.git; ls -d deps*" \
	'after "$WS"'
fresh
escape 'a submodule five levels down, known only to the index' \
	"$(evil deep) echo 'gitdir: ../../../../../../evilrepo/.git' > a/b/c/d/e/deep/.git" \
	'after "$WS"'
fresh
escape 'a gitlink, .gitmodules and a nested .git staged for git status to recurse into' \
	"mkdir -p sub2 && git -C sub2 init -q && $(fsmon gitlink) >> sub2/.git/config
	 printf '[submodule \"sub2\"]\n\tpath = sub2\n\turl = ./sub2\n' >> .gitmodules
	 git update-index --add --cacheinfo 160000,$(hgit -C "$WS" rev-parse HEAD),sub2 && echo STAGED" \
	'! out | grep -qx STAGED && after "$WS"'
fresh
escape 'husky: the script its hook runs (core.hooksPath .husky/_)' \
	"printf '#!/bin/sh\necho husky >> $M\n' > .husky/pre-commit
	 printf '#!/bin/sh\necho husky >> $M\n' > .husky/_/pre-commit" \
	'after "$WS"'
fresh
precommit=$(digest "$WS/.pre-commit-config.yaml")
escape 'pre-commit'"'"'s config (its local hooks run at the next commit)' \
	"printf 'repos:\n- repo: local\n  hooks: [{id: x, name: x, entry: touch $M, language: system}]\n' \
	    > .pre-commit-config.yaml" \
	'[ "$(digest "$WS/.pre-commit-config.yaml")" = "$precommit" ]'
fresh
escape 'a config file of the work tree that .git/config includes' \
	"$(fsmon include) >> .gitshared" 'after "$WS"'
fresh
escape 'a linked work tree'"'"'s .git file' \
	"$(evil worktree) echo 'gitdir: ../evilrepo/.git' > wt/.git" \
	'after "$WS/wt"'
fresh
escape 'a repository of its own, two levels down' \
	"$(fsmon nested) >> vendor/x/.git/config; git -C vendor/x config core.fsmonitor 'echo nested >> $M;'" \
	'after "$WS/vendor/x"'
fresh
escape 'its core.hooksPath, missing, is made and kept read-only' \
	"mkdir -p vendor/x/.githooks; printf '#!/bin/sh\necho hookspath >> $M\n' > vendor/x/.githooks/pre-commit
	 chmod +x vendor/x/.githooks/pre-commit" \
	'[ -d "$WS/vendor/x/.githooks" ] && after "$WS/vendor/x"'
fresh
escape 'a git directory elsewhere in the workspace, named by a .git file' \
	"$(fsmon separate) >> store/sep.git/config" 'after "$WS/sep"'
fresh
check 'a repository made where there was none: the output says so' "
	tool bash '{\"command\":\"git init -q . && echo made\"}' -w '$WS2' &&
	out | grep -q '^\\[pi-tool: this call made the git repository $(cd "$WS2" && pwd -P)/.git'"
fresh
check 'a call that makes none says nothing' "
	tool bash '{\"command\":\"echo plain\"}' -w '$WS2' && ! out | grep -q 'pi-tool:'"
fresh
head=$(hgit -C "$WS" rev-parse HEAD)
check '--allow-write of a git directory lifts its protection: a commit' "
	tool bash '{\"command\":\"git -c user.email=a@b -c user.name=a commit -q --allow-empty -m mine && echo COMMITTED\"}' \
	    --allow-write '$WS/.git' && out | grep -qx COMMITTED &&
	[ \"\$(hgit -C '$WS' log -1 --format=%s)\" = mine ] &&
	[ \"\$(hgit -C '$WS' rev-parse HEAD~1)\" = '$head' ]"
fresh
check '... and only that one' "
	tool bash '{\"command\":\"echo x >> vendor/x/.git/config || echo REFUSED\"}' --allow-write '$WS/.git' &&
	out | grep -qx REFUSED"
# A call made a repository whose config is a FIFO: the next call's look
# at it must not wait for a writer.
echo '{"toolCallId":"f","toolName":"bash","input":{"command":"echo AGAIN"}}' >again.json
fresh
check 'a FIFO for a config does not stall the next call' '
	tool bash "{\"command\":\"git init -q fifo && rm fifo/.git/config && mkfifo fifo/.git/config && echo FIFO\"}" -w "$WS2" &&
	out | grep -qx FIFO &&
	timeout 30 ${PI_TEST_AS:-} "${PI_TOOL:-pi-tool}" -w "$WS2" <again.json >"$TMP/ev" &&
	out | grep -qx AGAIN'
done_testing
