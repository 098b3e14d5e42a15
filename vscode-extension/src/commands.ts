// The CMC commands: open a trace, bookmarks (add, rename, delete, re-check from one), go to a
// step, the views. Adding a bookmark needs a session stopped on a trace; renaming and deleting
// go through the session when one runs, else through `cmcdap bookmarks`.

import * as vscode from 'vscode';
import { valueText } from './choices';
import { checkThisPackage, openTraceConfig, recheckConfig } from './config';
import { runText } from './cli';
import { dbFor, folderFor, locateCmcdap } from './debug';
import type { CustomRequests } from './protocol.gen';
import { CmcSession, CmcSessions } from './sessions';
import { BookmarkRecord, TraceRecord, checkBookmarkName, compareChoices, frameSessionOf, frameStepOf, hereBookmark } from './trees';
import { BookmarkTree, TraceTree } from './treeViews';
import { ViewsPanel } from './panel';
import { browserUrl } from './panelHtml';
import { MinimizeMessage, minimizeMessage, parseMinimize } from './results';
import { parseCoverage, summary } from './coverage';
import { CoverageDecorations } from './coverageEditor';

export interface CommandDeps {
  sessions: CmcSessions;
  traces: TraceTree;
  bookmarks: BookmarkTree;
  panel: ViewsPanel;
  coverage: CoverageDecorations;
  extensionPath: string;
  lastProgram(): string | undefined;
}

export function registerCommands(d: CommandDeps): vscode.Disposable[] {
  const reg = vscode.commands.registerCommand;
  return [
    reg('cmc.checkPackage', () => {
      const folder = folderFor();
      const doc = vscode.window.activeTextEditor?.document;
      const file = doc?.languageId === 'go' ? doc.uri.fsPath : undefined;
      return vscode.debug.startDebugging(folder, checkThisPackage({ activeFile: file, folder: folder?.uri.fsPath }) as vscode.DebugConfiguration);
    }),
    reg('cmc.openTrace', async (arg?: TraceRecord | number) => {
      const id = await traceId(arg, 'open');
      if (id === undefined) return;
      const folder = folderFor();
      return vscode.debug.startDebugging(folder, openTraceConfig(id, dbFor(folder), programOf(d)) as vscode.DebugConfiguration);
    }),
    reg('cmc.minimizeTrace', async (arg?: TraceRecord | number, states?: number) => {
      const id = await traceId(arg, 'minimize');
      if (id === undefined) return;
      const bound = typeof states === 'number' ? ['-states', states] : [];
      const out = await cmcdap(d, `Minimizing trace #${id}`, ['minimize', '-json', ...bound, id], 600000);
      if (out === undefined) return;
      d.traces.refresh();
      let m: MinimizeMessage;
      try {
        m = minimizeMessage(parseMinimize(out));
      } catch (e) {
        void vscode.window.showErrorMessage(`cmc: ${(e as Error).message}`);
        return;
      }
      const open = m.open !== undefined ? `Open Trace #${m.open}` : undefined;
      const pick = await vscode.window.showInformationMessage(m.text, ...[open, m.retry?.label].filter((x): x is string => x !== undefined));
      if (pick !== undefined && pick === open) await vscode.commands.executeCommand('cmc.openTrace', m.open);
      else if (pick !== undefined && pick === m.retry?.label) await vscode.commands.executeCommand('cmc.minimizeTrace', id, m.retry.states);
    }),
    // Where two traces part and how their states differ from there (cmcdap diff), as a text
    // document beside the editor: after a re-check from a bookmark, the trace before and after.
    reg('cmc.compareTraces', async (arg?: TraceRecord | number) => {
      const id = await traceId(arg, 'compare');
      if (id === undefined) return;
      const choices = compareChoices(await d.traces.getChildren(), id); // fresh: the view may be hidden
      if (choices.length === 0) {
        void vscode.window.showInformationMessage(`cmc: trace #${id} is the only stored trace: there is nothing to compare it with`);
        return;
      }
      const other = await vscode.window.showQuickPick(choices, { title: `Compare trace #${id} with` });
      if (!other) return;
      // With a session, its views show the two sequence charts side by side and the pairs of
      // steps; without one, cmcdap diff's text.
      if (d.panel.compare(id, other.id)) return;
      const out = await cmcdap(d, `Comparing traces #${id} and #${other.id}`, ['diff', id, other.id], 60000);
      if (out === undefined) return;
      const doc = await vscode.workspace.openTextDocument({ content: out, language: 'plaintext' });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }),
    reg('cmc.exportTraceTest', async (arg?: TraceRecord | number) => {
      const id = await traceId(arg, 'export as a Go test');
      if (id === undefined) return;
      const dir = programOf(d) ?? folderFor()?.uri.fsPath;
      const target = await vscode.window.showSaveDialog({
        title: `Export trace #${id} as a Go test of the package that registers its model`,
        defaultUri: dir ? vscode.Uri.file(`${dir}/trace${id}_test.go`) : undefined,
        filters: { Go: ['go'] },
      });
      if (!target) return;
      const out = await cmcdap(d, `Exporting trace #${id}`, ['export-test', '-o', target.fsPath, id], 120000);
      if (out === undefined) return;
      await vscode.window.showTextDocument(target);
      void vscode.window.showInformationMessage(`cmc: ${out.trim()}`);
    }),
    // The coverage of a stored run (the last one checked with coverage, or the run given), drawn
    // in the editor as the Go extension draws go test -cover.
    reg('cmc.showCoverage', async (run?: number) => {
      const out = await cmcdap(d, 'Reading coverage', ['coverage', '-json', typeof run === 'number' ? run : 'latest'], 20000);
      if (out === undefined) return;
      try {
        const r = parseCoverage(JSON.parse(out));
        d.coverage.show(r);
        void vscode.window.showInformationMessage(summary(r));
      } catch (e) {
        void vscode.window.showErrorMessage(`cmc: ${(e as Error).message}`);
      }
    }),
    reg('cmc.hideCoverage', () => d.coverage.hide()),
    reg('cmc.refresh', () => {
      d.traces.refresh();
      d.bookmarks.refresh();
    }),
    reg('cmc.addBookmark', () => addBookmark(d, needSession(d))),
    reg('cmc.bookmarkFrame', async (...args: unknown[]) => {
      const c = frameSession(d, args);
      const step = c && frameStep(c, args);
      if (step !== undefined) await addBookmark(d, c, step);
    }),
    reg('cmc.gotoStep', async () => {
      const c = needSession(d);
      if (!c) return;
      const s = await vscode.window.showInputBox({ prompt: 'Go to step', value: String(c.focusedStep() ?? ''), validateInput: (v) => (/^\d+$/.test(v.trim()) ? undefined : 'A step is a whole number, 0 or more') });
      if (s !== undefined) await request(c, 'cmc/gotoStep', { step: Number(s.trim()) });
    }),
    reg('cmc.gotoFrameStep', async (...args: unknown[]) => {
      const c = frameSession(d, args);
      const step = c && frameStep(c, args);
      if (step !== undefined) await request(c!, 'cmc/gotoStep', { step });
    }),
    // Renaming and deleting work on the trace database: through the session when one runs (it
    // has the database open), else with cmcdap bookmarks.
    reg('cmc.renameBookmark', async (b?: BookmarkRecord) => {
      b ??= await pickBookmark(d);
      if (!b) return;
      const taken = d.bookmarks.items.map((x) => x.name).filter((n) => n !== b!.name);
      const newName = await vscode.window.showInputBox({ prompt: `Rename bookmark "${b.name}"`, value: b.name, validateInput: (v) => checkBookmarkName(v, taken) });
      if (newName === undefined || newName.trim() === b.name) return;
      const c = d.sessions.any();
      const done = c
        ? await request(c, 'cmc/renameBookmark', { name: b.name, newName: newName.trim() })
        : (await cmcdap(d, `Renaming bookmark ${b.name}`, ['bookmarks', '-rename', b.name, '-to', newName.trim()], 20000)) !== undefined;
      if (done) d.bookmarks.refresh();
    }),
    reg('cmc.removeBookmark', async (b?: BookmarkRecord) => {
      b ??= await pickBookmark(d);
      if (!b) return;
      const ok = await vscode.window.showWarningMessage(`Delete bookmark "${b.name}"?`, { modal: true }, 'Delete');
      if (ok !== 'Delete') return;
      const c = d.sessions.any();
      const done = c
        ? await request(c, 'cmc/removeBookmark', { name: b.name })
        : (await cmcdap(d, `Deleting bookmark ${b.name}`, ['bookmarks', '-delete', b.name], 20000)) !== undefined;
      if (done) d.bookmarks.refresh();
    }),
    reg('cmc.recheckFromBookmark', async (b?: BookmarkRecord) => {
      b ??= await pickBookmark(d);
      if (!b) return;
      const program = programOf(d);
      if (!program) {
        void vscode.window.showErrorMessage('cmc: which package should be re-checked? Check it once (F5), or add a "Re-check from bookmark" configuration with its "program" to launch.json');
        return;
      }
      const folder = folderFor();
      return vscode.debug.startDebugging(folder, recheckConfig(b.name, program, dbFor(folder)) as vscode.DebugConfiguration);
    }),
    // "What if" from a step: a search from that state, as a re-check from a bookmark is (the step
    // is bookmarked as "from #T step N" so the run can say where it started).
    reg('cmc.checkFromFrame', async (...args: unknown[]) => {
      const c = frameSession(d, args);
      const step = c && frameStep(c, args);
      if (!c || step === undefined) return;
      const program = programOf(d);
      if (!program) {
        void vscode.window.showErrorMessage('cmc: which package should be checked? Check it once (F5) first');
        return;
      }
      const here = hereBookmark(d.bookmarks.items, c.trace(), step);
      if (!here.reuse) {
        if (step !== c.topStep && !(await request(c, 'cmc/gotoStep', { step }))) return;
        if (!(await request(c, 'cmc/addBookmark', { name: here.name, note: 'Check from Here' }))) return;
        d.bookmarks.refresh();
      }
      const folder = folderFor();
      return vscode.debug.startDebugging(folder, recheckConfig(here.name, program, dbFor(folder)) as vscode.DebugConfiguration);
    }),
    // What if this step had gone differently: another value of one of its Choose calls, or another
    // enabled event. The branch is a new stored trace (derived from this one), opened in a session
    // of its own at the step that went differently; Check from Here there searches on.
    reg('cmc.whatIfFrame', async (...args: unknown[]) => {
      const c = frameSession(d, args);
      const step = c && frameStep(c, args);
      if (c && step !== undefined) await whatIf(d, c, step);
    }),
    // The same from the views panel's "what if…" on the step it shows (panel.ts).
    reg('cmc.whatIfStep', async (step: number) => {
      const c = needSession(d);
      if (c && typeof step === 'number') await whatIf(d, c, step);
    }),
    reg('cmc.openViews', () => d.panel.open()),
    reg('cmc.openViewsInBrowser', async () => {
      const views = d.sessions.any()?.views;
      if (!views) return vscode.window.showInformationMessage('cmc: the views are served while a cmc debug session runs');
      // In code-server or a remote window the server's 127.0.0.1 is not the browser's: asExternalUri
      // forwards it. The URL goes to openExternal as a string (which VS Code opens as it is):
      // a vscode.Uri would escape the "=" of ?token= and the server would refuse the page.
      const external = await vscode.env.asExternalUri(vscode.Uri.parse(`${views.httpOrigin}/`));
      return vscode.env.openExternal(browserUrl(views, external.toString(true)) as unknown as vscode.Uri);
    }),
    reg('cmc.showChoices', async () => {
      const c = needSession(d);
      if (!c) return;
      const items = (await c.choices()).map((ch) => ({ label: `#${ch.step}  Choose → ${valueText(ch)}`, description: ch.site, choice: ch }));
      if (items.length === 0) {
        void vscode.window.showInformationMessage('cmc: no Choose call ran up to this step');
        return;
      }
      const pick = await vscode.window.showQuickPick(items.reverse(), { placeHolder: 'Choose calls along the trace (newest first): pick one to go to its step' });
      if (pick) await request(c, 'cmc/gotoStep', { step: pick.choice.step });
    }),
  ];
}

/**
 * What if step `step` of c's trace had gone differently: another value of one of its Choose
 * calls, or another enabled event. The branch is a new stored trace (derived from this one),
 * opened in a session of its own at the step that went differently; Check from Here there
 * searches on.
 */
async function whatIf(d: CommandDeps, c: CmcSession, step: number): Promise<void> {
  if (step === 0) {
    void vscode.window.showInformationMessage('cmc: step 0 is the initial state: ask what if on a later step');
    return;
  }
  let alts;
  try {
    alts = await c.request('cmc/alternatives', { step });
  } catch (e) {
    void vscode.window.showErrorMessage(`cmc: ${(e as Error).message}`);
    return;
  }
  if (alts.alternatives.length === 0) {
    void vscode.window.showInformationMessage(`cmc: step ${step} could not have gone otherwise: its Choose calls had one value each and no other event was enabled`);
    return;
  }
  const pick = await vscode.window.showQuickPick(
    alts.alternatives.map((a) => ({ label: a.what, description: `${a.proc}.${a.event}`, alternative: a })),
    { placeHolder: `What if step ${step} had gone differently?` },
  );
  if (!pick) return;
  let b;
  try {
    b = await c.request('cmc/branch', { step, alternative: pick.alternative });
  } catch (e) {
    void vscode.window.showErrorMessage(`cmc: ${(e as Error).message}`);
    return;
  }
  d.traces.refresh();
  void vscode.window.showInformationMessage(`cmc: what if step ${step}: ${pick.label}: trace #${b.trace}; ${b.violation ? `at once: ${b.violation}` : 'nothing breaks at that step (Check from Here searches on)'}`);
  const folder = folderFor();
  const config = { ...openTraceConfig(b.trace, dbFor(folder), programOf(d)), name: `What if #${c.trace() ?? '?'} step ${step}` };
  // Show the step that went differently once the new session stops.
  const shown = d.sessions.onDidStopFirst((s) => {
    if (s.session.configuration.trace !== b.trace) return;
    shown.dispose();
    if (!b.violation) void request(s, 'cmc/gotoStep', { step });
  });
  if (!(await vscode.debug.startDebugging(folder, config as vscode.DebugConfiguration))) shown.dispose();
}

/** The package of the running cmc session, else of the last check launched here. */
/** The trace a command is for: the tree item it was run on, or one the user types. */
async function traceId(arg: TraceRecord | number | undefined, what: string): Promise<number | undefined> {
  const id = typeof arg === 'number' ? arg : arg?.id;
  if (id !== undefined) return id;
  const s = await vscode.window.showInputBox({ prompt: `Id of the stored trace to ${what}`, validateInput: (v) => (/^\d+$/.test(v.trim()) && Number(v) > 0 ? undefined : 'A trace id is a whole number, 1 or more') });
  return s ? Number(s.trim()) : undefined;
}

/**
 * cmcdap runs a command of cmcdap on the workspace's trace database, in the workspace folder,
 * with a cancellable progress notification, and returns its output; it shows the error and
 * returns undefined when the command fails.
 */
async function cmcdap(d: CommandDeps, title: string, args: (string | number)[], timeoutMs: number): Promise<string | undefined> {
  const folder = folderFor();
  const found = locateCmcdap(d.extensionPath, folder?.uri.fsPath);
  if ('error' in found) {
    void vscode.window.showErrorMessage(found.error);
    return undefined;
  }
  const db = dbFor(folder);
  const argv = [String(args[0]), ...(db ? ['-db', db] : []), ...args.slice(1).map(String)];
  try {
    return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `cmc: ${title}…`, cancellable: true }, (_, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return runText(found.path, argv, folder?.uri.fsPath, timeoutMs, abort.signal);
    });
  } catch (e) {
    void vscode.window.showErrorMessage(`cmc: ${(e as Error).message}`);
    return undefined;
  }
}

function programOf(d: CommandDeps): string | undefined {
  const p = d.sessions.active()?.session.configuration.program;
  return typeof p === 'string' && p !== '' ? p : d.lastProgram();
}

/** The session of the right-clicked frame (with two sessions open, not always the active one). */
function frameSession(d: CommandDeps, args: readonly unknown[]): CmcSession | undefined {
  return d.sessions.byID(frameSessionOf(args)) ?? needSession(d);
}

function needSession(d: CommandDeps, what = 'do that'): CmcSession | undefined {
  const c = d.sessions.active() ?? d.sessions.any();
  if (!c) void vscode.window.showErrorMessage(`cmc: start a cmc debug session to ${what} (bookmarks are kept by cmcdap)`);
  return c;
}

async function request<K extends keyof CustomRequests>(c: CmcSession, command: K, args: CustomRequests[K]['args']): Promise<boolean> {
  try {
    await c.request(command, args);
    return true;
  } catch (e) {
    void vscode.window.showErrorMessage(`cmc: ${(e as Error).message}`);
    return false;
  }
}

/**
 * The step of the frame a Call Stack context command was run on; when the arguments do not say
 * which frame it was, it says so and returns undefined, never another step.
 */
function frameStep(c: CmcSession, args: readonly unknown[]): number | undefined {
  const step = frameStepOf(args, c.frames);
  if (step === undefined) {
    void vscode.window.showErrorMessage('cmc: cannot tell which step this Call Stack frame shows (cmcdap names frames "#STEP ..."): select the frame and use "CMC: Bookmark Current Step" instead');
  }
  return step;
}

async function addBookmark(d: CommandDeps, c: CmcSession | undefined, step?: number): Promise<void> {
  if (!c) return;
  if (!c.stopped) {
    void vscode.window.showErrorMessage('cmc: a bookmark marks the step the debugger is stopped at: wait for it to stop');
    return;
  }
  const at = step ?? c.focusedStep();
  const taken = d.bookmarks.items.map((b) => b.name);
  const name = await vscode.window.showInputBox({
    title: at !== undefined ? `Bookmark step ${at}` : 'Bookmark this step',
    prompt: 'Name of the bookmark (re-check from it later, e.g. after fixing the bug)',
    validateInput: (v) => checkBookmarkName(v, taken),
  });
  if (name === undefined) return;
  const note = await vscode.window.showInputBox({ title: `Bookmark "${name.trim()}"`, prompt: 'A note (optional)' });
  if (note === undefined) return;
  if (at !== undefined && at !== c.topStep) {
    // cmc/addBookmark marks the current step: go to the frame's step first.
    if (!(await request(c, 'cmc/gotoStep', { step: at }))) return;
  }
  if (await request(c, 'cmc/addBookmark', { name: name.trim(), note })) {
    d.bookmarks.refresh();
    void vscode.window.setStatusBarMessage(`cmc: bookmarked step ${at ?? ''} as "${name.trim()}"`, 4000);
  }
}

async function pickBookmark(d: CommandDeps): Promise<BookmarkRecord | undefined> {
  let items: BookmarkRecord[];
  try {
    items = await d.bookmarks.getChildren();
  } catch {
    items = [];
  }
  if (items.length === 0) {
    void vscode.window.showInformationMessage('cmc: no bookmarks yet');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items.map((b) => ({ label: b.name, description: `trace #${b.trace} step ${b.step}`, detail: b.note, b })));
  return pick?.b;
}
