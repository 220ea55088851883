#!/bin/sh
# pi-tool escape suite, the home directory: hidden by default but for
# the workspace and git's own configuration, whatever credential files
# it holds, so that the default does not hang on a list being complete.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/tool.sh"
plan 10

# A home full of credentials, outside the workspace.  It is under $TMP,
# which the sandbox's private /tmp hides anyway: each call shows $TMP
# (--allow-read), as a home on a shared file system would be seen.
H=$TMP/home
files='.ssh/id_ed25519 .aws/credentials .gnupg/private-keys-v1.d/k.key
.config/gh/hosts.yml .netrc .docker/config.json .kube/config
.git-credentials .npmrc .pypirc .cargo/credentials.toml .pgpass
.vault-token .bash_history .zsh_history .psql_history
.cache/huggingface/token .s3cfg .config/rclone/rclone.conf
.terraform.d/credentials.tfrc.json .my.cnf .boto .gem/credentials
.m2/settings.xml .config/containers/auth.json .config/gcloud/credentials.db
.azure/msal_token_cache.json .password-store/x.gpg'
for f in $files; do
	mkdir -p "$H/$(dirname "$f")" && echo "SECRET-$f-$$" >"$H/$f"
done
echo "not a secret" >"$H/notes.txt"
printf '[user]\n\tname = Home Git User\n' >"$H/.gitconfig"
mkdir -p "$H/proj" && echo "in the project" >"$H/proj/readme"
chmod -R a+rX "$H"
[ -z "${PI_TEST_AS:-}" ] || chown -R "${PI_TEST_UID:-65534}" "$H/proj"
HOME=$H
export HOME
SHOW="--allow-read $TMP"
no_secret() { ! out | grep -q -- "SECRET-"; }
nfiles=$(echo $files | wc -w)

escape "none of $nfiles credential files of \$HOME is readable" \
	"for f in $(echo $files); do cat ~/\$f; done 2>&1 | head -c 2000
	 ls $TMP" \
	"no_secret && out | grep -qx ws" $SHOW
escape 'nor found by listing or searching the home' \
	'ls -laR ~ 2>&1 | head -50; grep -rs SECRET ~ /home /root 2>&1 | head' \
	no_secret $SHOW
check 'nor by the read and grep tools' "
	tool read '{\"file_path\":\"$H/.pgpass\"}' $SHOW; no_secret &&
	tool grep '{\"pattern\":\"SECRET\",\"path\":\"$H\"}' $SHOW; no_secret"
escape 'the rest of the home is hidden too' 'cat ~/notes.txt; ls -A ~' \
	"! out | grep -q 'not a secret'" $SHOW
gitconfig=$(digest "$H/.gitconfig")
escape "git's own configuration is shown, read-only" \
	'git config user.name; echo x >> ~/.gitconfig' \
	"out | grep -qx 'Home Git User' && [ \"\$(digest '$H/.gitconfig')\" = '$gitconfig' ]" $SHOW
check 'a workspace inside the home is shown, and writable' "
	tool bash '{\"command\":\"cat readme && echo more >> readme; cat ~/notes.txt; true\"}' \
	    -w '$H/proj' $SHOW &&
	out | grep -qx 'in the project' && ! out | grep -q 'not a secret' &&
	grep -qx more '$H/proj/readme'"
escape "with the home shown (--allow-read \$HOME), the credential files stay hidden" \
	"for f in $(echo $files); do cat ~/\$f; done 2>&1 | head -c 2000; cat ~/notes.txt" \
	"no_secret && out | grep -qx 'not a secret'" $SHOW --allow-read "$H"
check '--allow-read of one of them shows it' "
	tool read '{\"file_path\":\"$H/.cache/huggingface/token\"}' $SHOW \
	    --allow-read '$H/.cache/huggingface' &&
	out | grep -q 'SECRET-.cache/huggingface/token'"
# Every user's home, whoever HOME says we are.
roots=$(ls -A /root 2>/dev/null | grep -v -e '^\.gitconfig$' -e '^\.config$' | head -1)
if [ -n "$roots" ]; then
	escape '/root is hidden, whatever HOME says' 'ls -A /root 2>&1' \
		"! out | grep -qxF '$roots'"
else
	skip '/root is hidden' 'no /root, or nothing in it to hide'
fi
homes=$(ls -A /home 2>/dev/null | head -1)
if [ -n "$homes" ]; then
	escape '/home is hidden' 'ls -A /home 2>&1' "! out | grep -qxF '$homes'"
else
	skip '/home is hidden' 'no /home, or nothing in it'
fi
done_testing
