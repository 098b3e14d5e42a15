// The CMC model checker extension: debug type `cmc` (cmcdap as the adapter), Choose values in
// the editor, the Traces and Bookmarks views and the CMC Views panel. Each part is in its own
// file; this one wires them together.

import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { CoverageDecorations } from './coverageEditor';
import { CmcAdapterFactory, CmcConfigurationProvider } from './debug';
import { ChoiceValues } from './inline';
import { ViewsPanel } from './panel';
import { CmcSessions } from './sessions';
import { reportMessage } from './results';
import { BookmarkTree, ResultTree, StoreLists, TraceTree } from './treeViews';

const lastProgramKey = 'cmc.lastProgram';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('CMC');
  const sessions = new CmcSessions();
  const lists = new StoreLists(sessions, context.extensionPath);
  const traces = new TraceTree(lists);
  const bookmarks = new BookmarkTree(lists);
  const results = new ResultTree();
  const panel = new ViewsPanel(context.extensionPath, sessions);
  const coverage = new CoverageDecorations();
  const choices = new ChoiceValues(sessions);
  const remember = (program: string) => void context.workspaceState.update(lastProgramKey, program);
  const configs = new CmcConfigurationProvider(context.extensionPath, remember);

  traces.view = vscode.window.createTreeView('cmc.traces', { treeDataProvider: traces });
  bookmarks.view = vscode.window.createTreeView('cmc.bookmarks', { treeDataProvider: bookmarks });

  const refreshTrees = () => {
    traces.refresh();
    bookmarks.refresh();
  };

  context.subscriptions.push(
    log,
    sessions,
    traces,
    bookmarks,
    traces.view,
    bookmarks.view,
    panel,
    choices,
    vscode.debug.registerDebugConfigurationProvider('cmc', configs, vscode.DebugConfigurationProviderTriggerKind.Initial),
    vscode.debug.registerDebugConfigurationProvider('cmc', configs, vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.debug.registerDebugAdapterDescriptorFactory('cmc', new CmcAdapterFactory(context.extensionPath, log)),
    vscode.debug.registerDebugAdapterTrackerFactory('cmc', sessions),
    vscode.languages.registerCodeLensProvider({ language: 'go', scheme: 'file' }, choices),
    vscode.languages.registerHoverProvider({ language: 'go', scheme: 'file' }, choices),
    sessions.onDidStopFirst(refreshTrees), // a check that stops has stored its trace
    sessions.onDidChangeBookmarks(() => bookmarks.refresh()),
    results,
    vscode.window.createTreeView('cmc.results', { treeDataProvider: results }),
    sessions.onDidReport((c) => {
      const r = c.report!;
      results.add(r);
      traces.refresh();
      const m = reportMessage(r);
      if (!m.notify) return;
      // With a violation the session stops on its trace; without, the original is worth a click.
      const open = m.open !== undefined && !r.violation ? `Open Trace #${m.open}` : undefined;
      void vscode.window.showInformationMessage(m.notify, ...(open ? [open] : [])).then((pick) => {
        if (pick && pick === open) void vscode.commands.executeCommand('cmc.openTrace', m.open);
      });
    }),
    vscode.debug.onDidTerminateDebugSession((s) => {
      if (s.type === 'cmc') refreshTrees();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('cmc.db') || e.affectsConfiguration('cmc.cmcdapPath')) refreshTrees();
    }),
    coverage,
    ...registerCommands({ sessions, traces, bookmarks, panel, coverage, extensionPath: context.extensionPath, lastProgram: () => context.workspaceState.get<string>(lastProgramKey) }),
  );
}

export function deactivate(): void {}
