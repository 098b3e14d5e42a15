// Choose values in the editor. While a cmc session is stopped, each Choose call of the step being
// looked at shows its value above its line, as a CodeLens ("Choose → 2 of 3", or with the model's
// label "Choose → 0 of 2: deliver RREP C→A"), and hovering such a line lists every value that call
// site took along the trace so far. A CodeLens is laid out from the line's indentation, within the
// editor, so a long line does not push it off the right edge as an inline value at the line's end
// was (air.go:150 beside the views panel); it is shown in every Go editor, not only the stopped
// frame's file, which is all VS Code asks an InlineValuesProvider for. Clicking it lists the
// trace's Choose calls (CMC: Show Choose Values of the Trace).

import * as vscode from 'vscode';
import { hoverMarkdown, inlineChoices } from './choices';
import { CmcSessions } from './sessions';

function enabled(): boolean {
  return vscode.workspace.getConfiguration('cmc').get<boolean>('inlineChoices', true);
}

export class ChoiceValues implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  private readonly refresh = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.refresh.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly sessions: CmcSessions) {
    this.disposables.push(
      sessions.onDidChange(() => this.refresh.fire()),
      // An editor shown again shows the lenses it had: ask again, for the step now looked at.
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('cmc.inlineChoices')) this.refresh.fire();
      }),
    );
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const c = this.sessions.active();
    const step = c?.focusedStep();
    if (!c || !c.stopped || step === undefined || !enabled()) return [];
    const choices = await c.choices();
    return inlineChoices(choices, step, document.uri.fsPath)
      .filter(({ line }) => line < document.lineCount)
      .map(({ line, text }) => new vscode.CodeLens(document.lineAt(line).range, {
        title: text,
        command: 'cmc.showChoices',
        tooltip: 'the value this Choose call returned in this step; hover the line for every value it took, click for every Choose call of the trace',
      }));
  }

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const c = this.sessions.active();
    if (!c || !c.stopped) return undefined;
    const md = hoverMarkdown(await c.choices(), document.uri.fsPath, position.line, c.focusedStep());
    return md ? new vscode.Hover(new vscode.MarkdownString(md), document.lineAt(position.line).range) : undefined;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.refresh.dispose();
  }
}
