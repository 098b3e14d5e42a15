// CMC: Show Coverage draws a stored run's coverage in the editor the way the Go extension draws
// `go test -cover`: covered blocks on a green-blue background, uncovered ones on red, in every
// visible editor of a measured file, until the file is edited (then it no longer matches) or
// CMC: Hide Coverage.

import * as vscode from 'vscode';
import { RunCoverage, Span, fileSpans } from './coverage';

export class CoverageDecorations implements vscode.Disposable {
  // The Go extension's default highlight colours (go.coverageDecorator).
  private readonly covered = vscode.window.createTextEditorDecorationType({
    backgroundColor: 'rgba(64,128,128,0.5)',
    overviewRulerColor: 'rgba(64,128,128,0.5)',
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly uncovered = vscode.window.createTextEditorDecorationType({
    backgroundColor: 'rgba(128,64,64,0.25)',
    overviewRulerColor: 'rgba(128,64,64,0.5)',
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private run: RunCoverage | undefined;
  private readonly edited = new Set<string>();
  private readonly subs: vscode.Disposable[] = [
    vscode.window.onDidChangeVisibleTextEditors(() => this.draw()),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (this.run && e.contentChanges.length > 0 && fileSpans(this.run, e.document.uri.fsPath)) {
        this.edited.add(e.document.uri.fsPath);
        this.draw();
      }
    }),
  ];

  show(r: RunCoverage): void {
    this.run = r;
    this.edited.clear();
    this.draw();
  }

  hide(): void {
    this.run = undefined;
    this.draw();
  }

  private draw(): void {
    for (const ed of vscode.window.visibleTextEditors) {
      const file = ed.document.uri.fsPath;
      const spans = this.run && !this.edited.has(file) ? fileSpans(this.run, file) : undefined;
      ed.setDecorations(this.covered, (spans?.covered ?? []).map(range));
      ed.setDecorations(this.uncovered, (spans?.uncovered ?? []).map(range));
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.covered.dispose();
    this.uncovered.dispose();
  }
}

function range(s: Span): vscode.Range {
  return new vscode.Range(s.startLine, s.startChar, s.endLine, s.endChar);
}
