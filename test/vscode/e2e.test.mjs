// End-to-end test of the cmc extension in a real VS Code: code-server (VS Code 1.100 served to a
// browser) with the packaged cmc.vsix installed, driven by Playwright through the system
// Chromium. It opens a copy of the fixture workspace with a copy of examples/aodv in it (the test
// edits the protocol code there, as a user fixing the bug does), starts a cmc launch
// configuration, waits for the stop on the violation, checks the Call Stack, Variables, Step
// Back, the Choose values, the hover, the CMC trees and the views panel, and leaves screenshots in
// test/vscode/out/. The browser window is 1024 by 768, VS Code's default window size (its
// default window state), so the screenshots and the layout checks are what a user sees first.
//
// Run it with test/vscode/run.sh (it builds the .vsix and installs code-server first).
// Environment: CODE_SERVER (the code-server launcher), CMC_VSIX (the package to test),
// CHROMIUM (default: chromium on PATH), CMC_CMCDAP (sets cmc.cmcdapPath; default: the cmcdap
// bundled in the .vsix), CMC_E2E_CONFIG (launch configuration name in fixture/.vscode/launch.json;
// default "Check AODV").

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const out = path.join(here, 'out');
const fixture = path.join(here, 'fixture');
// The workspace code-server opens: a copy of fixture/ and of examples/aodv (aodv/), a module of
// its own that uses this checkout of cmc (replace), made in before().
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cmc-e2e-'));
const aodv = path.join(ws, 'aodv');
// VS Code's default window (its default window state is 1024 by 768).
const windowSize = { width: 1024, height: 768 };
const cs = path.join(out, 'cs');
const codeServer = process.env.CODE_SERVER || execFileSync(path.join(here, 'install-code-server.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const vsix = process.env.CMC_VSIX || path.join(repo, 'vscode-extension', 'cmc.vsix');
const chromiumPath = process.env.CHROMIUM || execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();

// "Check AODV" (the default) checks AODVSpecBug (2.2M states, about 25 s) and stops on the
// routing loop; its Choose calls are in air.go while the handler is in model.go, so the inline
// value is seen by Step Into and as a decoration in air.go. "Check Lossy" finds its violation in
// four steps in well under a second, with a Choose in the stopped frame's own file.
const configName = process.env.CMC_E2E_CONFIG || 'Check AODV';

const log = (...a) => console.log(`[e2e ${new Date().toISOString().slice(11, 19)}]`, ...a);

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

let server;
let serverLog = '';
let browser;
let page;
const shots = [];

async function shot(name) {
  const file = path.join(out, `${String(shots.length + 1).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  shots.push(file);
  log('screenshot', path.relative(repo, file));
}

/** Runs a command from the palette by its label and waits for the palette to close. */
async function command(label) {
  const input = page.locator('.quick-input-widget input[type="text"]').first();
  await withFocus(async () => {
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(`>${label}`, { timeout: 5000 });
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ state: 'visible', timeout: 10000 });
    await input.press('Enter', { timeout: 5000 });
  });
}

/**
 * Moves the active editor's cursor to line, column col with Go to Line, and waits for the box to
 * close and the status bar to say Ln line, Col shown (it counts a tab to the next multiple of the
 * tab size, Go to Line one character). A views panel that opens meanwhile takes the focus and
 * keeps the Enter, which left the box open over the next click: then it goes again.
 */
async function goTo(line, col = 1, shown = col) {
  const input = page.locator('.quick-input-widget input[type="text"]').first();
  await withFocus(async () => {
    await page.keyboard.press('Control+G');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(`:${line}:${col}`, { timeout: 5000 });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: `Go to line ${line}` }).first().waitFor({ state: 'visible', timeout: 5000 });
    await input.press('Enter', { timeout: 5000 });
    await input.waitFor({ state: 'hidden', timeout: 5000 });
    await page.locator('.statusbar-item', { hasText: `Ln ${line}, Col ${shown}` }).first().waitFor({ state: 'visible', timeout: 5000 });
  });
}

/**
 * Runs action, again (up to four times) after giving the focus back to the window: a webview
 * that opens (the views panel) takes the focus, which closes the command palette or Quick Open,
 * or keeps the keys.
 */
async function withFocus(action) {
  for (let i = 0; ; i++) {
    try {
      return await action();
    } catch (e) {
      if (i === 3) throw e;
      await page.keyboard.press('Escape');
      await page.mouse.click(400, 8);
      await page.waitForTimeout(1000);
    }
  }
}

/** Waits until the Call Stack's text (white space folded) matches re. */
async function waitStack(re, timeout = 15000) {
  await page.waitForFunction((src) => new RegExp(src).test((document.querySelector('.debug-call-stack')?.innerText ?? '').replace(/\s+/g, ' ')), re.source, { timeout });
}

/** Opens a file with Quick Open (Ctrl+P), again when a webview taking the focus closed it. */
async function openFile(file) {
  const name = path.basename(file);
  const input = page.locator('.quick-input-widget input[type="text"]').first();
  await withFocus(async () => {
    await page.keyboard.press('Control+P');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(file, { timeout: 5000 });
    await page.waitForTimeout(500);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().click({ timeout: 5000 });
    await page.locator('.tab.active', { hasText: name }).waitFor({ state: 'visible', timeout: 10000 });
  });
}

/** Starts a launch configuration by name through quick access ("debug NAME"). */
async function startDebugging(name) {
  // The list is empty until the extension host has registered the cmc debugger: retry.
  for (let i = 0; ; i++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input[type="text"]').first();
    await input.waitFor({ state: 'visible' });
    await input.fill(`debug ${name}`);
    try {
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 3000 });
      await input.press('Enter');
      return;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (i === 10) throw e;
      await page.waitForTimeout(2000);
    }
  }
}

const callStack = () => page.locator('.debug-call-stack');
const frames = () => callStack().locator('.monaco-list-row', { hasText: /#\d+ / });

/** The step number of the focused (selected) frame in the Call Stack, or of the first one. */
// topStep is the step the debugger is at: the newest frame of any thread (each thread lists only
// the steps its process took, so the stopped thread's top frame is the largest number shown).
async function topStep() {
  const texts = await frames().allInnerTexts();
  const m = texts.map((t) => /#(\d+) /.exec(t)).filter(Boolean).map((x) => Number(x[1]));
  return m.length ? Math.max(...m) : undefined;
}

/** What the views panel's page shows, read from its (nested) webview frame. */
async function viewsPage() {
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    const info = await f.evaluate(() => ({
      origin: location.origin,
      text: document.body?.innerText ?? '',
      meta: document.querySelector('meta[name="cmc-views"]')?.getAttribute('data-ws') ?? null,
      config: document.getElementById('cmc-config')?.textContent ?? null,
      state: window.__cmcState ?? null,
      csp: window.__cmcCspViolations ?? null,
    })).catch(() => undefined);
    if (info && info.config !== null) return info;
  }
  return undefined;
}

/**
 * Runs an item of a row's context menu. A click right after the menu opens may be ignored: retry.
 * A row a list has scrolled under its pane's header (the Call Stack's, say) cannot be clicked: the
 * header takes the click. Then the list is scrolled back to its top (the wheel over it), where the
 * rows these tests open menus on are in view, and the click tried again.
 */
async function contextMenu(row, label) {
  for (let i = 0; ; i++) {
    try {
      await row.click({ button: 'right', timeout: 5000 });
    } catch (e) {
      if (i === 3) throw e;
      const box = await row.locator("xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' monaco-list ')][1]").boundingBox().catch(() => null);
      if (box) {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, -5000);
        await page.waitForTimeout(300);
      }
      log('context menu: the row was covered; scrolled its list to the top, again');
      continue;
    }
    const item = page.locator('.context-view .action-label', { hasText: label }).first();
    await item.waitFor({ state: 'visible' });
    await page.waitForTimeout(400);
    await item.hover();
    await item.click();
    try {
      await item.waitFor({ state: 'hidden', timeout: 2000 });
      return;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (i === 3) throw e;
    }
  }
}

/**
 * Waits until the newest frame of the Call Stack is step n. The pane is short at VS Code's default
 * window size and its list draws only the rows in view: when it stays scrolled down after a move
 * (the thread's row then sticks at its top), the newest frames are not in the page at all, so the
 * list is scrolled back to its top (the wheel over it; the keyboard focus stays where it is) each
 * time before looking again.
 */
async function waitTopStep(n, timeout = 30000) {
  const topStep = (s) => {
    const steps = [...document.querySelectorAll('.debug-call-stack .monaco-list-row')].map((r) => /#(\d+) /.exec(r.textContent ?? '')).filter(Boolean).map((m) => Number(m[1]));
    return steps.length > 0 && Math.max(...steps) === s;
  };
  const until = Date.now() + timeout;
  for (;;) {
    const list = page.locator('.debug-call-stack .monaco-list').first();
    if (await list.isVisible().catch(() => false)) {
      const box = await list.boundingBox();
      if (box) {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, -5000);
      }
    }
    try {
      await page.waitForFunction(topStep, n, { timeout: 2000 });
      return;
    } catch (e) {
      if (Date.now() > until) throw e;
    }
  }
}

/** Types a line into the Debug Console and runs it (":goto 13"). */
async function consoleLine(text) {
  await command('Focus on Debug Console View');
  const input = page.locator('.repl-input-wrapper .monaco-editor textarea').first();
  await input.waitFor({ state: 'visible' });
  await input.focus();
  // Clear what a Quick Open that lost the focus may have left there.
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Runs fn in the views panel's page (its nested webview frame) and returns what it returns. */
async function inViews(fn, arg) {
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    const here = await f.evaluate(() => document.getElementById('cmc-config') !== null).catch(() => false);
    if (here) return f.evaluate(fn, arg);
  }
  throw new Error('no views panel page');
}

/** The Variables row of the variable named name (VS Code labels it "NAME, value VALUE"). */
function variableRow(name) {
  return page.locator(`.debug-variables .monaco-list-row[aria-label^=${JSON.stringify(name + ', value')}]`).first();
}

/** Expands the Variables row of the variable named name (the first one) and returns it. */
async function expandVariable(name, timeout = 15000) {
  const row = variableRow(name);
  try {
    await row.waitFor({ state: 'visible', timeout });
  } catch (e) {
    const labels = await page.locator('.debug-variables .monaco-list-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label')));
    throw new Error(`no variable ${name} in the Variables pane: ${labels.join(' | ')}`);
  }
  if ((await row.getAttribute('aria-expanded')) !== 'true') {
    await row.click();
    await page.waitForTimeout(400);
    if ((await row.getAttribute('aria-expanded')) !== 'true') await page.keyboard.press('ArrowRight');
  }
  await page.waitForTimeout(400);
  return row;
}

/**
 * Expands a path of Variables rows ("A", "routes"). The pane refreshes a moment after the Call
 * Stack moves, and a refresh can fold a row just expanded: try the whole path again then.
 */
async function expandPath(...names) {
  for (let attempt = 0; ; attempt++) {
    try {
      for (const name of names) await expandVariable(name, 5000);
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.waitForTimeout(1000);
    }
  }
}

/** Stops every debug session still running, so one failed test does not fail the next. */
async function stopAll() {
  for (let i = 0; i < 4 && (await page.locator('.debug-toolbar').isVisible()); i++) {
    await page.locator('.debug-toolbar [aria-label^="Stop"]').first().click().catch(() => {});
    await page.waitForTimeout(2000);
  }
}

/** A notification whose text matches re, once it shows. */
async function notification(re, timeout = 120000) {
  const n = page.locator('.notifications-toasts .notification-list-item', { hasText: re }).first();
  await n.waitFor({ state: 'visible', timeout });
  return (await n.innerText()).replace(/\s+/g, ' ');
}

/** Waits for the debugger to stop on a trace; a launch error (a dialog) fails at once with its text. */
async function stopOrError() {
  const dialog = page.locator('.monaco-dialog-box');
  const stopped = frames().first();
  await Promise.race([stopped.waitFor({ state: 'visible', timeout: 180000 }), dialog.waitFor({ state: 'visible', timeout: 180000 })]);
  if (await dialog.isVisible()) throw new Error(`launch failed: ${(await dialog.innerText()).replace(/\s+/g, ' ')}`);
}

/**
 * makeWorkspace copies fixture/ and examples/aodv (its code, not its tests) into ws, as a module
 * that requires this checkout of cmc, and points the launch configurations at the copy: the test
 * edits aodv/rerr.go there, never the repository's.
 */
function makeWorkspace() {
  fs.cpSync(fixture, ws, { recursive: true, filter: (src) => path.basename(src) !== '.cmc' });
  fs.mkdirSync(aodv);
  const src = path.join(repo, 'examples', 'aodv');
  for (const f of fs.readdirSync(src)) {
    if (f.endsWith('.go') && !f.endsWith('_test.go')) fs.copyFileSync(path.join(src, f), path.join(aodv, f));
  }
  const goVersion = /^go (\S+)$/m.exec(fs.readFileSync(path.join(repo, 'go.mod'), 'utf8'))[1];
  fs.writeFileSync(path.join(ws, 'go.mod'), `module example.com/e2e\n\ngo ${goVersion}\n\nrequire github.com/cmc-go/cmc v0.0.0\n\nreplace github.com/cmc-go/cmc => ${repo}\n`);
  fs.copyFileSync(path.join(repo, 'go.sum'), path.join(ws, 'go.sum'));
  // Offline: every module cmc needs is in the module cache already.
  execFileSync('go', ['mod', 'tidy'], { cwd: ws, env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const launch = path.join(ws, '.vscode', 'launch.json');
  fs.writeFileSync(launch, fs.readFileSync(launch, 'utf8').replaceAll('${workspaceFolder}/../../../examples/aodv', '${workspaceFolder}/aodv'));
  log('workspace', ws);
}

/**
 * Checks that every Choose value shown (its CodeLens text) lies inside its editor's visible area:
 * not cut at the right edge by a long line or by the views panel beside the editor.
 */
async function chooseVisible(what) {
  const boxes = await page.evaluate(() => [...document.querySelectorAll('.monaco-editor .codelens-decoration')]
    .filter((e) => e.textContent.includes('Choose →'))
    .map((e) => {
      const text = document.createRange();
      text.selectNodeContents(e);
      const t = text.getBoundingClientRect();
      const area = e.closest('.monaco-editor').querySelector('.overflow-guard').getBoundingClientRect();
      return { text: e.textContent, l: t.left, r: t.right, t: t.top, b: t.bottom, area: { l: area.left, r: area.right, t: area.top, b: area.bottom } };
    }));
  log(`${what}:`, boxes.map((b) => `"${b.text}" x ${Math.round(b.l)}-${Math.round(b.r)} in ${Math.round(b.area.l)}-${Math.round(b.area.r)}`).join(' / '));
  assert.ok(boxes.length > 0, `${what}: no Choose value shown`);
  for (const b of boxes) {
    assert.ok(b.l >= b.area.l && b.r <= b.area.r && b.t >= b.area.t && b.b <= b.area.b,
      `${what}: "${b.text}" at x ${b.l}..${b.r}, y ${b.t}..${b.b} is not inside its editor's visible area x ${b.area.l}..${b.area.r}, y ${b.area.t}..${b.area.b}`);
  }
}

before(async () => {
  assert.ok(fs.existsSync(vsix), `no ${vsix}: build it with vscode-extension/scripts/package.sh`);
  fs.rmSync(out, { recursive: true, force: true });
  makeWorkspace();
  for (const d of ['config', 'data', 'ud/User', 'ud/Machine', 'ext']) fs.mkdirSync(path.join(cs, d), { recursive: true });
  // cmc.cmcdapPath is a machine setting: code-server (a remote to VS Code) reads it from Machine/.
  if (process.env.CMC_CMCDAP) fs.writeFileSync(path.join(cs, 'ud', 'Machine', 'settings.json'), JSON.stringify({ 'cmc.cmcdapPath': process.env.CMC_CMCDAP }));
  fs.writeFileSync(path.join(cs, 'ud', 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'security.workspace.trust.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'git.enabled': false,
    'debug.openDebug': 'openOnSessionStart',
    'debug.inlineValues': 'on',
    'window.commandCenter': false,
    'chat.commandCenter.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    // The test saves a Go file (the fix): local history would keep copies of it under out/cs,
    // inside this module, where go list ./... would find them.
    'workbench.localHistory.enabled': false,
  }, null, 2));
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(cs, 'config'), XDG_DATA_HOME: path.join(cs, 'data') };
  // cmcdap builds the checked package: the Go toolchain must be on the extension host's PATH.
  const goBin = path.dirname(execFileSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).trim());
  env.PATH = `${goBin}:${env.PATH}`;
  // The extension host may take PATH from a login shell, which drops the test's PATH (and with it
  // make's .tools/dlv-*); cmcdap also looks for Delve in GOBIN (`go env GOBIN`), which it keeps.
  const dlv = execFileSync('sh', ['-c', 'command -v dlv || true'], { encoding: 'utf8' }).trim();
  if (dlv && !env.GOBIN) env.GOBIN = path.dirname(dlv);
  const common = ['--user-data-dir', path.join(cs, 'ud'), '--extensions-dir', path.join(cs, 'ext')];
  log('installing', path.relative(repo, vsix));
  execFileSync(codeServer, ['--install-extension', vsix, ...common], { env, stdio: ['ignore', 'pipe', 'pipe'] });

  const port = await freePort();
  server = spawn(codeServer, ['--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', ...common, '--disable-telemetry',
    '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', ws], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (b) => (serverLog += b));
  server.stderr.on('data', (b) => (serverLog += b));
  for (let i = 0; i < 100 && !serverLog.includes('HTTP server listening'); i++) await new Promise((r) => setTimeout(r, 200));
  log('code-server on port', port);

  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  page = await browser.newPage({ viewport: windowSize });
  page.setDefaultTimeout(30000);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
  await page.locator('.part.statusbar').waitFor({ state: 'visible' });
  await page.waitForTimeout(3000); // let the extension host start
});

after(async () => {
  fs.writeFileSync(path.join(out, 'code-server.log'), serverLog);
  const hostLogs = [];
  const walk = (d) => fs.existsSync(d) && fs.readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /exthost|CMC/.test(e.name) && hostLogs.push(path.join(d, e.name))));
  walk(path.join(cs, 'ud', 'logs'));
  for (const f of hostLogs) fs.copyFileSync(f, path.join(out, `${path.basename(path.dirname(f))}-${path.basename(f)}`));
  await browser?.close();
  server?.kill();
  fs.rmSync(ws, { recursive: true, force: true });
});

test(`${configName}: stop on the violation, step back, Choose values, trees and views`, { timeout: 420000 }, async () => {
  try {
    await scenario();
  } catch (e) {
    await shot('failure').catch(() => {});
    await stopAll().catch(() => {});
    throw e;
  } finally {
    // The next tests open trace 1, which the fixed code no longer takes: back to the code that
    // has the bug.
    fs.copyFileSync(path.join(repo, 'examples', 'aodv', 'rerr.go'), path.join(aodv, 'rerr.go'));
  }
});

// The first thing a user does, with no configuration written: CMC: Check This Package (what F5
// with no launch.json runs) on the AODV example. It registers two models, so the extension asks
// which (cmcdap models); the check then stops on the routing loop.
test('Check This Package on examples/aodv: pick the model, stop on the routing loop', { timeout: 240000 }, async () => {
  try {
    await checkThisPackage();
  } catch (e) {
    await shot('failure').catch(() => {});
    await stopAll().catch(() => {});
    throw e;
  }
});

// Step into the protocol code at step 12 of the loop (A receives C's stale RERR) with Delve: a
// breakpoint in rerr.go, the real Go stack above the trace, a local read in the Debug Console,
// then step out back to the trace.
test('Step into the AODV code: the stale RERR in rerr.go under Delve', { timeout: 300000 }, async (t) => {
  if (configName !== 'Check AODV') return t.skip('needs the AODV trace');
  try {
    await stepIntoCode();
  } catch (e) {
    await shot('failure').catch(() => {});
    await stopAll().catch(() => {});
    throw e;
  }
});

async function stepIntoCode() {
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 15000 });
  await startDebugging('Step into the AODV code');
  await waitTopStep(16, 60000);
  await page.waitForTimeout(3000); // the views panel opens on the first stop
  await consoleLine(':goto 11');
  await waitTopStep(11);
  // A breakpoint on rerr.go:49, where the stale RERR's sequence number is copied.
  await openFile(path.join(aodv, 'rerr.go'));
  await goTo(49);
  await page.keyboard.press('F9');
  await page.locator('.debug-breakpoint, .codicon-debug-breakpoint-unverified, .codicon-debug-breakpoint').first().waitFor({ state: 'visible', timeout: 10000 });

  // Step Into runs step 12's handler under Delve (the first time, a debug build of the package).
  await page.locator('.debug-toolbar [aria-label^="Step Into"]').click();
  const handler = callStack().locator('.monaco-list-row', { hasText: /#12 A: receive RERR from C › NewModel\.func/ });
  await handler.first().waitFor({ state: 'visible', timeout: 180000 });
  // VS Code shows the new top frame over the old stack until it has fetched the rest.
  await waitStack(/#12 A: receive RERR from C › NewModel\.func\d+ .*#11 A: receive RREP from C/);
  log('in the handler:', (await callStack().innerText()).replace(/\s+/g, ' ').slice(0, 200));
  await shot('step-into-handler');

  await page.locator('.debug-toolbar [aria-label^="Continue"]').click();
  const inRERR = callStack().locator('.monaco-list-row', { hasText: 'recvRERR' });
  await inRERR.first().waitFor({ state: 'visible', timeout: 30000 });
  await page.locator('.tab.active', { hasText: 'rerr.go' }).waitFor({ state: 'visible', timeout: 10000 });
  await waitStack(/recvRERR.*Receive.*#12 A: receive RERR from C.*#11 /);
  const stackText = (await callStack().innerText()).replace(/\s+/g, ' ');
  log('at the breakpoint:', stackText.slice(0, 300));
  assert.match(stackText, /Paused on breakpoint in step 12: rerr\.go:49/i);
  assert.match(stackText, /recvRERR.*Receive.*#12 A: receive RERR from C.*#11 /s, 'the Go frames sit above the trace');

  // A local, read by Delve: the RERR's unreachable destination is D (3).
  await consoleLine('u.Dest');
  const repl = page.locator('.repl .monaco-list-row', { hasText: '0x3' });
  await repl.first().waitFor({ state: 'visible', timeout: 15000 });
  log('u.Dest:', (await repl.first().innerText()).replace(/\s+/g, ' '));
  await shot('step-into-breakpoint-rerr');

  // Step out, out of recvRERR, Receive and the handler: back at trace level after step 12.
  for (let i = 0; i < 5 && (await inRERR.count()) + (await handler.count()) > 0; i++) {
    await page.locator('.debug-toolbar [aria-label^="Step Out"]').click();
    await page.waitForTimeout(1500);
  }
  await waitTopStep(12);
  assert.equal(await callStack().locator('.monaco-list-row', { hasText: /recvRERR|NewModel\.func/ }).count(), 0, 'no Go frames after the step');
  log('after stepping out:', (await callStack().innerText()).replace(/\s+/g, ' ').slice(0, 120));

  // The breakpoint holds at trace level too: from the start, Continue stops on rerr.go:49 inside
  // the step that runs it (found by running the trace under Delve once).
  await consoleLine(':goto 0');
  await waitTopStep(0);
  await page.locator('.debug-toolbar [aria-label^="Continue"]').click();
  await inRERR.first().waitFor({ state: 'visible', timeout: 60000 });
  const again = (await callStack().innerText()).replace(/\s+/g, ' ');
  log('continue from the start:', again.slice(0, 200));
  assert.match(again, /Paused on breakpoint in step 12: rerr\.go:49/i);
  await shot('continue-to-code-line');
  await command('Remove All Breakpoints');

  // What if A had taken the other packet at step 12? Right-click its frame, pick the other
  // Choose value: a new trace, derived from trace 1, opens in a session of its own at step 12.
  await stopAll();
  await startDebugging('Step into the AODV code');
  await waitTopStep(16, 60000);
  await page.waitForTimeout(2000);
  await contextMenu(frames().filter({ hasText: '#12 A: receive RERR from C' }).first(), 'What If This Step Went Differently');
  const alternative = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'deliver RREP C→A' }).first();
  await alternative.waitFor({ state: 'visible', timeout: 60000 });
  log('what if step 12:', (await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')).join(' / '));
  await shot('what-if-alternatives');
  await alternative.click();
  const whatIf = await notification(/what if step 12/, 60000);
  log('what if:', whatIf);
  assert.match(whatIf, /Choose #1 at aodv\/air\.go:150 = 0 of 2: deliver RREP C→A: trace #\d+; nothing breaks/);
  // Two sessions now: open the branch's (its thread A, then its frames).
  const session = callStack().locator('.monaco-list-row', { hasText: 'What if #1 step 12' }).first();
  await session.waitFor({ state: 'visible', timeout: 60000 });
  const branched = callStack().locator('.monaco-list-row', { hasText: '#12 A: receive RREP from C' });
  for (let i = 0; i < 10 && !(await branched.first().isVisible()); i++) {
    const row = (await session.getAttribute('aria-expanded')) !== 'true' ? session : callStack().locator('.monaco-list-row[aria-expanded="false"]', { hasText: /^A\b/ }).first();
    await row.click().catch(() => {});
    await page.waitForTimeout(1000);
  }
  await branched.first().waitFor({ state: 'visible', timeout: 10000 });
  log('the branch:', (await callStack().innerText()).replace(/\s+/g, ' ').slice(0, 160));
  await shot('what-if-branch');

  // The loop and its branch side by side: Compare with Trace… shows both charts in the views.
  await command('CMC: Compare with Trace…');
  const idBox = page.locator('.quick-input-widget input[type="text"]').first();
  await idBox.waitFor({ state: 'visible' });
  await idBox.fill('1');
  await idBox.press('Enter');
  const otherTrace = page.locator('.quick-input-widget .monaco-list-row', { hasText: '#2' }).first();
  await otherTrace.waitFor({ state: 'visible', timeout: 15000 });
  await otherTrace.click();
  let compared = '';
  for (let i = 0; i < 60 && !/they part at step 12/.test(compared); i++) {
    await page.waitForTimeout(500);
    compared = await inViews(() => ({ text: document.querySelector('.compare-summary')?.textContent ?? '', charts: document.querySelectorAll('.compare-col svg.chart').length }))
      .then((v) => `${v.text} (${v.charts} charts)`).catch(() => '');
  }
  log('compare:', compared);
  assert.match(compared, /trace 1 and trace 2: the same first 11 steps; they part at step 12.*\(2 charts\)/);
  await shot('compare-loop-and-branch');
  await stopAll();
}

async function checkThisPackage() {
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 15000 }); // the first test stopped its session
  await openFile(path.join(aodv, 'model.go'));
  await command('CMC: Check This Package');
  const pick = page.locator('.quick-input-widget .monaco-list-row');
  await pick.filter({ hasText: 'AODVSpecBug' }).first().waitFor({ state: 'visible', timeout: 120000 });
  const offered = (await pick.allInnerTexts()).map((t) => t.trim());
  log('models offered:', offered.join(' / '));
  assert.deepEqual(offered, ['AODV', 'AODVChain', 'AODVGrid', 'AODVSpecBug']);
  await shot('pick-model');
  await pick.filter({ hasText: 'AODVSpecBug' }).first().click();
  await stopOrError();
  await page.waitForTimeout(1500);
  const step = await topStep();
  const reason = (await page.locator('.zone-widget .exception-widget').allInnerTexts()).join(' ').replace(/\s+/g, ' ');
  log('Check This Package stopped at step', step, '|', reason);
  assert.equal(step, 16, 'the shortest routing loop has 16 steps');
  assert.match(reason, /routing loop towards D: A -> B -> A/);
  await shot('check-this-package-stopped');
  await page.locator('.debug-toolbar [aria-label^="Stop"]').first().click();
}

async function scenario() {
  log('starting', configName);
  await startDebugging(configName);

  // The check builds the package, explores, and stops on the violation.
  await stopOrError();
  await page.waitForTimeout(1500);
  const stopStep = await topStep();
  log('stopped; top frame step', stopStep, '| frames:', (await frames().allInnerTexts()).map((t) => t.split('\n')[0]).join(' / '));
  assert.ok(stopStep >= 1, 'the Call Stack shows the trace\'s steps');
  log('stop reason:', (await page.locator('.zone-widget .exception-widget').allInnerTexts()).join(' | ').replace(/\n/g, ' '));

  const vars = page.locator('.debug-variables');
  await vars.locator('.monaco-list-row').first().waitFor({ state: 'visible' });
  const varText = (await vars.locator('.monaco-list-row').allInnerTexts()).join('\n');
  log('variables:', varText.replace(/\n/g, ' | ').slice(0, 400));
  assert.match(varText, /State/, 'the Variables pane shows the State scope');

  // The editor shows the Choose values of the step above their lines (CodeLens).
  const inline = page.locator('.monaco-editor .codelens-decoration', { hasText: 'Choose →' });
  let sawInline = false;
  try {
    await inline.first().waitFor({ state: 'visible', timeout: 15000 });
    sawInline = true;
    log('Choose values at the stop:', (await inline.allInnerTexts()).map((t) => t.trim()).join(' / '));
  } catch {
    log('no Choose value at the stop (the step may have no Choose call in a visible editor)');
  }
  await page.waitForTimeout(1000); // the views panel opens beside the editor
  await shot('stopped-on-violation');

  // Step back: the top frame moves one step earlier.
  await page.locator('.debug-toolbar [aria-label^="Step Back"]').click();
  await page.waitForFunction((s) => {
    const steps = [...document.querySelectorAll('.debug-call-stack .monaco-list-row')].map((r) => /#(\d+) /.exec(r.textContent ?? '')).filter(Boolean).map((m) => Number(m[1]));
    return steps.length > 0 && Math.max(...steps) === s - 1;
  }, stopStep, { timeout: 20000 });
  log('after Step Back: top frame step', await topStep());
  await page.waitForTimeout(1500);
  if (!sawInline) {
    try {
      await inline.first().waitFor({ state: 'visible', timeout: 10000 });
      sawInline = true;
    } catch {
      // reported below
    }
  }
  log('Choose values after Step Back:', sawInline ? (await inline.allInnerTexts()).map((t) => t.trim()).join(' / ') : '(none)');
  let steppedIn = false;
  if (!sawInline) {
    // The step's Choose calls are in another file than its handler (AODV: air.go): Step Into
    // stops at the next step's first Choose call, which opens its file with the value above it.
    await page.locator('.debug-toolbar [aria-label^="Step Into"]').click();
    try {
      await inline.first().waitFor({ state: 'visible', timeout: 15000 });
      sawInline = steppedIn = true;
      log('Choose values after Step Into:', (await inline.allInnerTexts()).map((t) => t.trim()).join(' / '));
    } catch {
      // reported below
    }
  }
  await shot('step-back-inline-choose');
  assert.ok(sawInline, 'a "Choose → v of n" value is shown in the editor');
  await chooseVisible('the stopped Choose call');

  // Hovering a Choose line lists the values the site took along the trace: the line under the
  // CodeLens.
  const lens = await inline.first().boundingBox();
  await page.mouse.move(lens.x + 40, lens.y + lens.height + 9);
  const hover = page.locator('.monaco-hover', { hasText: 'cmc.Choose' });
  await hover.first().waitFor({ state: 'visible', timeout: 10000 });
  await page.waitForTimeout(700); // the hover fades in
  const hoverText = (await hover.first().innerText()).replace(/\s+/g, ' ');
  log('hover:', hoverText.slice(0, 300));
  assert.match(hoverText, /← this step/);
  await shot('hover-choose-history');
  await page.mouse.move(5, 500);
  await page.keyboard.press('Escape');
  if (steppedIn) {
    // Back to where Step Back left the debugger, for the checks that follow.
    await page.locator('.debug-toolbar [aria-label^="Step Back"]').click();
    await page.waitForFunction((s) => {
      const steps = [...document.querySelectorAll('.debug-call-stack .monaco-list-row')].map((r) => /#(\d+) /.exec(r.textContent ?? '')).filter(Boolean).map((m) => Number(m[1]));
      return steps.length > 0 && Math.max(...steps) === s - 1;
    }, stopStep, { timeout: 20000 });
    // VS Code then shows the frame's file in the editor; let it, or it replaces the file opened
    // next.
    await page.locator('.tab.active', { hasText: 'model.go' }).waitFor({ state: 'visible', timeout: 10000 });
    await page.waitForTimeout(1000);
  }

  // A Choose call in another file than the stopped frame's (channel.go; AODV's air.go, whose
  // ChooseOf line at 150 is long) shows its value there too, inside the editor beside the views
  // panel.
  const otherFile = configName === 'Check AODV' ? 'air.go' : 'channel.go';
  // Quick Open lists the file from the editor history first and from the file search later;
  // Enter can land in between, so click the row, and try again if no tab opened.
  const otherTab = page.locator('.tab.active', { hasText: otherFile });
  for (let i = 0; ; i++) {
    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input[type="text"]').first();
    await quickOpen.waitFor({ state: 'visible' });
    await quickOpen.fill(otherFile);
    await page.waitForTimeout(500);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: otherFile }).first().click();
    try {
      await otherTab.waitFor({ state: 'visible', timeout: 5000 });
      break;
    } catch (e) {
      log(`Quick Open did not open ${otherFile} (try ${i + 1})`);
      await page.keyboard.press('Escape');
      if (i === 2) throw e;
    }
  }
  // Scroll the Choose line into view (air.go:150), as a user reading it does.
  if (configName === 'Check AODV') {
    await goTo(150);
  }
  await inline.first().waitFor({ state: 'visible', timeout: 15000 });
  if (configName === 'Check AODV') {
    // Step 15's value (the hover above lists it), not step 16's that Step Into showed here.
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Choose → 1 of 2: deliver RREQ A→B' }).first().waitFor({ state: 'visible', timeout: 15000 });
  }
  log(`Choose values in ${otherFile}:`, (await inline.allInnerTexts()).map((t) => t.trim()).join(' / '));
  await shot('choose-in-other-file');
  assert.ok((await inline.allInnerTexts()).some((d) => /Choose → \d+ of \d+/.test(d)), `the Choose in ${otherFile} shows its value`);
  await chooseVisible(`the Choose in ${otherFile}`);

  // The views panel (opened beside the editor on the first stop, cmc.views.openOnStop).
  const tab = page.locator('.tab', { hasText: 'CMC Views' });
  if (!(await tab.count())) await command('CMC: Open Views');
  await tab.first().waitFor({ state: 'visible', timeout: 15000 });
  await tab.first().click();
  let views = await viewsPage();
  for (let i = 0; i < 30 && views?.meta && views.state?.status !== 'connected'; i++) {
    await page.waitForTimeout(500);
    views = await viewsPage();
  }
  await page.waitForTimeout(1500); // let it draw
  views = await viewsPage();
  log('views panel:', JSON.stringify({ ...views, config: undefined, text: views?.text.replace(/\s+/g, ' ').slice(0, 200) }));
  await shot('views-panel');
  assert.ok(views, 'the CMC Views webview holds the panel page');
  assert.deepEqual(views.csp ?? [], [], 'no Content Security Policy violations');
  const viewsServer = views.meta !== null;
  if (viewsServer) {
    assert.equal(views.state?.status, 'connected', 'the views reach cmcdap\'s views server');
    assert.equal(views.state?.step, stopStep - 1, 'the views show the debugger\'s step');
  } else {
    log('WARNING: this cmcdap announces no views server (no cmc/views event): the panel says so');
    assert.match(views.text, /no views server/);
  }

  if (configName === 'Check AODV' && viewsServer) await loopStory(stopStep);

  // Bookmark the step the debugger is at (two before the violation: step 2 of Lossy, 14 of AODV)
  // from the Call Stack's context menu; it shows in the Bookmarks view.
  await page.locator('.debug-toolbar [aria-label^="Step Back"]').click(); // a step with no inline values
  await page.waitForTimeout(1000);
  if (viewsServer) {
    let step;
    for (let i = 0; i < 20 && step !== stopStep - 2; i++) {
      await page.waitForTimeout(250);
      step = (await viewsPage())?.state?.step;
    }
    log('views follow Step Back to step', step);
    assert.equal(step, stopStep - 2, 'the views follow the debugger');
  }
  // AODV: while at step 14, right-click A's frame of step 12 (the stale RERR): the bookmark is
  // that frame's step, not the current one. Lossy: the current step.
  const marked = configName === 'Check AODV' ? 12 : stopStep - 2;
  await contextMenu(frames().filter({ hasText: `#${marked} ` }).first(), 'Bookmark This Step');
  const input = page.locator('.quick-input-widget input[type="text"]').first();
  await input.waitFor({ state: 'visible' });
  await input.fill('before-reorder');
  await input.press('Enter');
  await page.waitForTimeout(300);
  await input.fill('both packets in flight');
  await input.press('Enter');
  await page.locator('.activitybar [aria-label^="CMC"]').first().click();
  const container = page.locator('[id="workbench.view.extension.cmc"]');
  const bookmarkRow = container.locator('.monaco-list-row', { hasText: 'before-reorder' });
  await bookmarkRow.first().waitFor({ state: 'visible', timeout: 15000 });
  const traceRow = container.locator('.monaco-list-row', { hasText: /#1 / });
  await traceRow.first().waitFor({ state: 'visible', timeout: 15000 });
  log('CMC views:', (await container.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\n/g, ' ')).join(' / '));
  assert.match(await bookmarkRow.first().innerText(), new RegExp(`trace #1 step ${marked}\\b`));
  await shot('cmc-traces-and-bookmarks');

  // Minimize the trace from its context menu (cmcdap minimize): breadth-first search found it, so
  // no step of it can be deleted, and the notification says it is minimal already.
  await contextMenu(traceRow.first(), 'Minimize Trace');
  const minimized = page.locator('.notifications-toasts .notification-list-item', { hasText: 'minimal already' });
  await minimized.first().waitFor({ state: 'visible', timeout: 120000 });
  log('minimize:', (await minimized.first().innerText()).replace(/\s+/g, ' '));

  // Stop, then re-check from the bookmark: a new check starts in that state and stops again.
  await page.locator('.debug-toolbar [aria-label^="Stop"]').first().click();
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 15000 });
  await page.waitForTimeout(1500); // the trees refresh when a session ends
  await bookmarkRow.first().hover();
  await bookmarkRow.first().locator('.actions [aria-label^="Re-check from This Bookmark"]').click(); // the row's inline action
  const picker = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'before-reorder' });
  await Promise.race([page.locator('.debug-toolbar').waitFor({ state: 'visible', timeout: 30000 }), picker.first().waitFor({ state: 'visible', timeout: 30000 })]);
  if (await picker.first().isVisible()) {
    log('the row was re-rendered under the click: pick the bookmark');
    await page.keyboard.press('Enter');
  }
  await page.locator('.debug-toolbar').waitFor({ state: 'visible', timeout: 30000 });
  if (!(await callStack().isVisible())) await page.keyboard.press('Control+Shift+D'); // shows, never hides
  await stopOrError();
  await page.waitForTimeout(1500);
  log('re-check from bookmark stopped:', (await frames().allInnerTexts()).map((t) => t.split('\n')[0]).join(' / '));
  log('debug console:', (await page.locator('.repl .monaco-list-row').allInnerTexts()).join(' ').replace(/\s+/g, ' ').slice(0, 400));
  await shot('recheck-from-bookmark');
  if (configName === 'Check AODV') {
    // The same violation along the same steps is the stored trace, and the editor says so.
    const same = await notification(/original:/);
    log('re-check result:', same);
    assert.match(same, /now: the same violation along the same steps \(trace 1\)/);

    // Check from Here on A's frame of step 12: a search from that state, bookmarked as
    // "from #1 step 12"; it finds the same loop, and the result says so.
    await contextMenu(frames().filter({ hasText: '#12 ' }).first(), 'Check from Here');
    const here = await notification(/from bookmark "from #1 step 12"/);
    log('check from here:', here);
    assert.match(here, /now: the same violation along the same steps \(trace 1\)/);
    await shot('check-from-here');
  }

  await stopAll(); // Check from Here started a second session
  if (configName !== 'Check AODV') return;

  // The fix, as a user makes it: in aodv/rerr.go (the workspace's copy), the stale-RERR rule
  // applies to every router, not only with Config.SpecRERRBug false: an RERR changes a route
  // only when it is newer. Typed in the editor and saved; then the same model, AODVSpecBug, is
  // re-checked from the bookmark: no violation, and the result says how it compares with the
  // original trace.
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 15000 });
  await page.locator('.notifications-toasts .notification-list-item .codicon-notifications-clear').first().click().catch(() => {});
  const rerr = path.join(aodv, 'rerr.go');
  const original = fs.readFileSync(rerr, 'utf8');
  assert.equal(original, fs.readFileSync(path.join(repo, 'examples', 'aodv', 'rerr.go'), 'utf8'), 'the copy is unedited');
  const rule = '!r.cfg.SpecRERRBug && ';
  const lines = original.split('\n');
  const ruleLine = lines.findIndex((l) => l.includes(`if ${rule}rt.ValidSeq`)) + 1;
  assert.ok(ruleLine > 0, 'rerr.go has the stale-RERR rule');
  const ruleCol = lines[ruleLine - 1].indexOf(rule) + 1;
  // The status bar counts columns as shown, a tab to the next multiple of 4 (the Tab Size).
  let shownCol = 1;
  for (const ch of lines[ruleLine - 1].slice(0, ruleCol - 1)) shownCol = ch === '\t' ? Math.floor((shownCol - 1) / 4) * 4 + 5 : shownCol + 1;
  await openFile(rerr);
  // The status bar says where the cursor is and what is selected, so each key lands before the
  // next is pressed.
  await goTo(ruleLine, ruleCol, shownCol);
  for (let i = 0; i < rule.length; i++) await page.keyboard.press('Shift+ArrowRight');
  await page.locator('.statusbar-item', { hasText: `(${rule.length} selected)` }).first().waitFor({ state: 'visible', timeout: 5000 });
  await page.keyboard.press('Delete');
  await page.keyboard.press('Control+S');
  const saved = () => fs.readFileSync(rerr, 'utf8').split('\n')[ruleLine - 1];
  for (let i = 0; i < 40 && saved().includes(rule); i++) await page.waitForTimeout(250);
  log('the fix, saved:', saved().trim());
  assert.equal(saved().trim(), 'if rt.ValidSeq && !SeqNewer(u.Seq, rt.Seq) {');
  await shot('fix-typed-in-rerr-go');

  // From the Command Palette this time (the Bookmarks view re-renders under a hover as the
  // session's trees refresh): it asks which bookmark.
  await command('CMC: Re-check from This Bookmark');
  await picker.first().waitFor({ state: 'visible', timeout: 15000 });
  await picker.first().click();
  const fixed = await notification(/now: no violation/, 240000);
  log('re-check with the fix:', fixed);
  assert.match(fixed, /AODVSpecBug from bookmark "before-reorder": original: invariant NoRoutingLoop.* at step 16 \(trace 1\); now: no violation in \d+ states \(complete\)/);
  await page.locator('.activitybar [aria-label^="CMC"]').first().click();
  const results = page.locator('[id="workbench.view.extension.cmc"] .monaco-list-row', { hasText: 'AODVSpecBug from bookmark "before-reorder": no violation' });
  await results.first().waitFor({ state: 'visible', timeout: 15000 });
  log('Results:', (await results.allInnerTexts()).map((t) => t.replace(/\n/g, ' ')).join(' / '));
  // The comparison with the original trace is the row's tooltip.
  await results.first().hover();
  const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'original:' }).first();
  await tip.waitFor({ state: 'visible', timeout: 10000 });
  const tipText = (await tip.innerText()).replace(/\s+/g, ' ');
  log('Results tooltip:', tipText);
  assert.match(tipText, /original: invariant NoRoutingLoop.* at step 16 \(trace 1\); now: no violation/);
  await shot('recheck-with-fix-result');

  // The session ends by itself, and the views panel says so instead of retrying its server.
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30000 });
  let panel = '';
  for (let i = 0; i < 60 && !/session has ended/.test(panel); i++) {
    await page.waitForTimeout(250);
    const texts = await Promise.all(page.frames().filter((f) => f !== page.mainFrame()).map((f) => f.evaluate(() => document.body?.innerText ?? '').catch(() => '')));
    panel = texts.find((t) => /session has ended|retrying|connected/.test(t)) ?? '';
  }
  log('views panel after the session:', panel.replace(/\s+/g, ' ').slice(0, 160));
  assert.match(panel, /session has ended/, 'the views panel says the session ended');
  assert.doesNotMatch(panel, /retrying/);
  await shot('session-ended-views');
}

// loopStory walks the AODV loop as the issue tells it: at step 13 the diff shows the loop's real
// changes and the chart's labels do not overlap at the panel's size; a data breakpoint on A's
// route to D and reverse continue land on the stale RERR (step 12), and the stop says why. It
// leaves the debugger where it found it (one step before the violation).
async function loopStory(stopStep) {
  await consoleLine(':goto 13');
  await waitTopStep(13);
  // VS Code shows the step's source on the stop; the keyboard stays in the Debug Console, so what
  // the user types next is not typed into model.go.
  await page.waitForTimeout(1500);
  const focus = await page.evaluate(() => ({ repl: !!document.activeElement?.closest('.repl'), dirty: document.querySelectorAll('.tab.dirty').length }));
  log('after :goto, focus in the Debug Console:', focus.repl, '| dirty editors:', focus.dirty);
  assert.ok(focus.repl, 'after :goto the keyboard focus stays in the Debug Console');
  assert.equal(focus.dirty, 0, 'no editor was typed into');
  let view;
  for (let i = 0; i < 40; i++) {
    view = await inViews(() => ({ step: window.__cmcState?.step, text: document.body.innerText }));
    if (view.step === 13 && /changed of/.test(view.text)) break;
    await page.waitForTimeout(250);
  }
  const counted = /(\d+) changed of (\d+)/.exec(view.text);
  log('step 13 diff:', counted?.[0]);
  assert.equal(counted?.[0], '4 changed of 149', 'step 13 shows B\'s two new routes, the reply that left the air and the table that was nil');
  const chart = await inViews(() => {
    const texts = [...document.querySelectorAll('svg.chart text')].map((e) => {
      const r = e.getBoundingClientRect();
      return { what: e.textContent, l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width };
    }).filter((t) => t.w > 0);
    const overlaps = [];
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const [a, b] = [texts[i], texts[j]];
        if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) overlaps.push(`${a.what} / ${b.what}`);
      }
    }
    const right = Math.min(document.querySelector('.chart-scroll').getBoundingClientRect().right, innerWidth);
    const lifelines = [...document.querySelectorAll('svg.chart line.lifeline')].map((e) => e.getBoundingClientRect().left);
    return { texts: texts.length, overlaps, width: innerWidth, lifelines, outside: lifelines.filter((l) => l > right) };
  });
  log('chart at step 13:', chart.texts, 'texts in a', chart.width, 'px wide panel;', chart.overlaps.length, 'overlapping');
  assert.ok(chart.texts > 0, 'the chart draws its texts');
  assert.deepEqual(chart.overlaps, [], 'no two texts of the sequence chart overlap');
  assert.equal(chart.lifelines.length, 4, 'a lifeline per router');
  assert.deepEqual(chart.outside, [], 'every lifeline is inside the panel');
  // The chart, heap and diff sections keep a readable height and do not draw over each other
  // (in a short panel the views scroll).
  const sections = await inViews(() => [...document.querySelectorAll('main.views > section.panel')].map((e) => {
    const r = e.getBoundingClientRect();
    return { what: e.className, t: r.top, b: r.bottom, h: r.height };
  }));
  log('views sections:', sections.map((x) => `${x.what} ${Math.round(x.h)} px`).join(' / '));
  assert.equal(sections.length, 3);
  for (const [i, x] of sections.entries()) {
    assert.ok(x.h >= 139, `${x.what} is ${x.h} px high`);
    if (i > 0) assert.ok(x.t >= sections[i - 1].b - 1, `${x.what} starts above the end of ${sections[i - 1].what}`);
  }
  await shot('loop-step13-diff-and-chart');

  // A data breakpoint on A's route to D, from the Variables pane, at the violation; reverse
  // continue goes back to the step that last changed it.
  await consoleLine(`:goto ${stopStep}`);
  await waitTopStep(stopStep);
  await page.waitForTimeout(1000);
  await expandPath('A', 'routes', '[Dest=D]');
  await contextMenu(variableRow('[Dest=D]'), 'Break on Value Change');
  await page.locator('.debug-toolbar [aria-label^="Reverse"]').first().click();
  await waitTopStep(12);
  await page.waitForTimeout(1000);
  const why = (await callStack().innerText()).replace(/\s+/g, ' ');
  log('reverse continue stopped at step 12:', why.slice(0, 200));
  assert.match(why, /data breakpoint: A\.routes\[Dest=D\] changed/i, 'the stop says which data breakpoint');
  await shot('data-breakpoint-stale-rerr');
  await command('Remove All Breakpoints');
  await consoleLine(`:goto ${stopStep - 1}`);
  await waitTopStep(stopStep - 1);
  await page.waitForTimeout(1000);
}
