#!/usr/bin/env bash
# Installs code-server (the real VS Code workbench, served to a browser) for the end-to-end test,
# once, into a cache directory outside the work tree: it is ~300 MB and takes about a minute.
# Also installs, with apt-get, what the test needs from Debian when it is missing: ripgrep and
# libkrb5-dev (code-server's install) and chromium (the browser). Prints the path of the
# code-server launcher on stdout.
#
# @vscode/ripgrep's install step downloads a ripgrep binary, which cannot work without network;
# we hand it Debian's rg in the cache file name it looks for (see shared/RECIPES.md).
set -euo pipefail
version=4.100.3
cache=${CMC_CODE_SERVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cmc/code-server-$version}
bin=$cache/node_modules/.bin/code-server
need=()
command -v rg >/dev/null || need+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
command -v chromium >/dev/null || need+=(chromium)
if ((${#need[@]})); then
	echo "installing ${need[*]} with apt-get" >&2
	apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$cache/tmp/vscode-ripgrep-cache-1.15.11"
tar czf "$cache/tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" \
	-C "$(dirname "$(command -v rg)")" rg
cd "$cache"
[[ -f package.json ]] || echo '{"private": true}' > package.json
echo "installing code-server@$version into $cache (about a minute)" >&2
TMPDIR=$cache/tmp npm_config_unsafe_perm=true npm_config_yes=true \
	npm install --no-audit --no-fund --loglevel=error "code-server@$version" >&2
echo "$bin"
