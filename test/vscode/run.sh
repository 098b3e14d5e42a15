#!/usr/bin/env bash
# The VS Code end-to-end test: installs what it needs (code-server into ~/.cache, Chromium and
# ripgrep with apt-get when missing, playwright-core with npm ci), builds cmc.vsix, and runs
# e2e.test.mjs with node --test. Screenshots and logs go to test/vscode/out/.
#
#   SKIP_VSIX=1   test the cmc.vsix that is there (vscode-extension/cmc.vsix or $CMC_VSIX)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export CODE_SERVER=${CODE_SERVER:-$("$here/install-code-server.sh")}
npm ci --no-audit --no-fund --loglevel=error
if [[ -z ${SKIP_VSIX:-} && -z ${CMC_VSIX:-} ]]; then
	../../vscode-extension/scripts/package.sh
fi
exec node --test --test-reporter=spec e2e.test.mjs
