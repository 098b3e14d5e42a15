// Choose values in the editor. While a cmc session is stopped, each Choose call of the step being
// looked at shows its value at the end of its line ("Choose → 2 of 3", or with the model's label
// "Choose → 0 of 2: deliver RREP C→A"), and hovering such a line lists every value that call site
// took along the trace so far. The editor does not wrap text after a line's end, so the inline
// text is kept to choices.maxInline characters; the hover shows every label whole.
//
// VS Code asks an InlineValuesProvider only for the file of the focused stack frame. A step's
// Choose calls are often in another file (a library's network delivery, say), so the other
// visible Go editors get the same text as decorations.

import * as vscode from 'vscode';
import { hoverMarkdown, inlineChoices } from './choices';
import { CmcSessions } from './sessions';

function enabled(): boolean {
  return vscode.workspace.getConfiguration('cmc').get<boolean>('inlineChoices', true);
}

export class ChoiceValues implements vscode.InlineValuesProvider, vscode.HoverProvider, vscode.Disposable {
  private readonly refresh = new vscode.EventEmitter<void>();
  readonly onDidChangeInlineValues = this.refresh.event;
  private readonly decoration = vscode.window.createTextEditorDecorationType({
    // Styled as VS Code's own inline values.
    after: { color: new vscode.ThemeColor('editor.inlineValuesForeground'), backgroundColor: new vscode.ThemeColor('editor.inlineValuesBackground'), margin: '0 0 0 1em' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly disposables: vscode.Disposable[] = [];
  private generation = 0;

  constructor(private readonly sessions: CmcSessions) {
    this.disposables.push(
      sessions.onDidChange(() => {
        this.refresh.fire();
        void this.decorate();
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => void this.decorate()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('cmc.inlineChoices')) {
          this.refresh.fire();
          void this.decorate();
        }
      }),
    );
  }

  async provideInlineValues(document: vscode.TextDocument, _viewPort: vscode.Range, context: vscode.InlineValueContext): Promise<vscode.InlineValue[]> {
    const c = this.sessions.active();
    if (!c || !c.stopped || !enabled()) return [];
    const step = c.frames.get(context.frameId)?.step ?? c.focusedStep();
    if (step === undefined) return [];
    const choices = await c.choices();
    return inlineChoices(choices, step, document.uri.fsPath)
      .filter(({ line }) => line < document.lineCount)
      .map(({ line, text }) => {
      const end = document.lineAt(line).range.end;
      return new vscode.InlineValueText(new vscode.Range(end, end), text);
    });
  }

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const c = this.sessions.active();
    if (!c || !c.stopped) return undefined;
    const md = hoverMarkdown(await c.choices(), document.uri.fsPath, position.line, c.focusedStep());
    return md ? new vscode.Hover(new vscode.MarkdownString(md), document.lineAt(position.line).range) : undefined;
  }

  /** Decorates the visible Go editors other than the focused frame's file. */
  private async decorate(): Promise<void> {
    const gen = ++this.generation;
    const c = this.sessions.active();
    const editors = vscode.window.visibleTextEditors.filter((e) => e.document.languageId === 'go' && e.document.uri.scheme === 'file');
    const clear = () => editors.forEach((e) => e.setDecorations(this.decoration, []));
    const step = c?.focusedStep();
    if (!c || !c.stopped || step === undefined || !enabled()) return clear();
    const choices = await c.choices();
    if (gen !== this.generation) return; // a newer stop or focus change won
    const framePath = c.focusedFrame()?.path;
    for (const e of editors) {
      const file = e.document.uri.fsPath;
      if (framePath === file) { // cmcdap names frames' files as the editor does
        e.setDecorations(this.decoration, []); // the inline values provider shows these
        continue;
      }
      const opts = inlineChoices(choices, step, file)
        .filter(({ line }) => line < e.document.lineCount)
        .map(({ line, text }) => {
          const end = e.document.lineAt(line).range.end;
          return { range: new vscode.Range(end, end), renderOptions: { after: { contentText: text } } };
        });
      e.setDecorations(this.decoration, opts);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.refresh.dispose();
    this.decoration.dispose();
  }
}
