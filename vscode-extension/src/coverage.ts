// What `cmcdap coverage -json RUN` says, shaped for the editor: which spans of a file a check ran
// and which it did not (the blocks of Go's cover tool), and a one-line summary. No vscode here:
// coverageEditor.ts draws it, as the Go extension draws `go test -cover`.

/** A span of a file, 0-based lines and characters, end exclusive (a vscode.Range's numbers). */
export interface Span {
  startLine: number;
  startChar: number;
  endLine: number;
  endChar: number;
}

interface Block {
  start_line: number;
  start_col: number;
  end_line: number;
  end_col: number;
  stmts: number;
  covered: boolean;
}

interface FileCoverage {
  file: string;
  statements: number;
  covered: number;
  blocks: Block[] | null;
}

/** RunCoverage is the part of `cmcdap coverage -json` the editor reads. */
export interface RunCoverage {
  run: number;
  measured: boolean;
  transitions: number;
  branching: number;
  coverage: { statements: number; covered: number; files: FileCoverage[] | null };
}

/** parseCoverage checks the shape of `cmcdap coverage -json`'s output. */
export function parseCoverage(out: unknown): RunCoverage {
  const r = out as RunCoverage;
  if (typeof r !== 'object' || r === null || typeof r.run !== 'number' || typeof r.coverage !== 'object' || r.coverage === null) {
    throw new Error('unexpected output from cmcdap coverage -json');
  }
  if (!r.measured) throw new Error(`run ${r.run} did not measure coverage: check with the launch attribute "coverage": true (cmcdap check -cover)`);
  return r;
}

/** fileSpans returns the covered and uncovered spans of file (an absolute path, as the editor
 * has it), or undefined when the run did not measure that file. Blocks with no statements are
 * left out, as go tool cover does. */
export function fileSpans(r: RunCoverage, file: string): { covered: Span[]; uncovered: Span[] } | undefined {
  const f = (r.coverage.files ?? []).find((x) => samePath(x.file, file));
  if (!f) return undefined;
  const covered: Span[] = [];
  const uncovered: Span[] = [];
  for (const b of f.blocks ?? []) {
    if (b.stmts === 0) continue;
    const s = { startLine: b.start_line - 1, startChar: b.start_col - 1, endLine: b.end_line - 1, endChar: b.end_col - 1 };
    (b.covered ? covered : uncovered).push(s);
  }
  return { covered, uncovered };
}

/** summary is the message shown when coverage is drawn. */
export function summary(r: RunCoverage): string {
  const c = r.coverage;
  const pct = c.statements === 0 ? 0 : (100 * c.covered) / c.statements;
  const files = (c.files ?? []).length;
  return `cmc: run ${r.run} covered ${pct.toFixed(1)}% of statements (${c.covered} of ${c.statements}) in ${files} file${files === 1 ? '' : 's'}, ${r.transitions.toLocaleString('en-US')} transitions`;
}

// Paths from cmcdap use the OS's separators; on Windows the editor's drive letter may differ in
// case.
function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, '/').replace(/^([a-z]):/, (_, d: string) => d.toUpperCase() + ':');
  return norm(a) === norm(b);
}
