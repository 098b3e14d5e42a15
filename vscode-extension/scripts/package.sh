#!/usr/bin/env bash
# Builds cmc.vsix, fully offline once npm packages are installed: the bundled extension, cmcdap
# for linux-x64 (bin/linux-x64/cmcdap, executable), and the views bundle (../webview/dist ->
# media/views). Run from anywhere; writes vscode-extension/cmc.vsix.
#
#   SKIP_NPM_CI=1   reuse node_modules as they are
#   SKIP_GO=1       do not build cmcdap (the .vsix then finds it on PATH or via cmc.cmcdapPath)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(cd .. && pwd)

if [[ -z ${SKIP_NPM_CI:-} ]]; then
	npm ci --no-audit --no-fund --loglevel=error
fi

node scripts/build.mjs --minify

rm -rf bin
if [[ -z ${SKIP_GO:-} ]]; then
	mkdir -p bin/linux-x64
	(cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o vscode-extension/bin/linux-x64/cmcdap ./cmd/cmcdap)
	chmod 755 bin/linux-x64/cmcdap
fi

rm -rf media/views && mkdir -p media
if [[ -f $repo/webview/dist/index.html ]] || compgen -G "$repo/webview/dist/*.js" >/dev/null; then
	cp -r "$repo/webview/dist" media/views
else
	echo "package.sh: no views bundle in webview/dist: the CMC Views panel will say so (build webview/ first)" >&2
fi

npx --no-install vsce package --no-dependencies -o cmc.vsix >&2
ls -l cmc.vsix >&2
