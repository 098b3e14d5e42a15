// The values Choose calls returned, as the editor shows them: inline at the call site for the
// current step, and on hover, every value one site took along the trace so far. The data comes
// from cmcdap's cmc/choices request; this file only shapes it.

/** One Choose call of the trace: in which step, where ("file:line"), the value and of how many. */
export interface Choice {
  step: number;
  site: string;
  value: number;
  n: number;
  /** The site's file and 1-based line, when cmcdap splits them itself. */
  file?: string;
  line?: number;
}

/** Where a Choose call is: its file and 1-based line. */
export function whereOf(c: Choice): { file: string; line: number } | undefined {
  if (typeof c.file === 'string' && c.file !== '' && typeof c.line === 'number') return { file: c.file, line: c.line };
  return parseSite(c.site);
}

/** A site split into its file and 1-based line. */
export function parseSite(site: string): { file: string; line: number } | undefined {
  const m = /^(.*?):(\d+)(?::\d+)?$/.exec(site);
  if (!m || m[1] === '') return undefined;
  return { file: m[1], line: Number(m[2]) };
}

function components(p: string): string[] {
  return p.split(/[\\/]+/).filter((c) => c !== '' && c !== '.');
}

/**
 * sameFile says whether a site's file is the document's file. The site is the path the worker
 * was built from, which is the document's own path on this machine; a trace recorded in another
 * checkout still matches when its last two path components (directory and file) agree, and a
 * relative site matches as a suffix.
 */
export function sameFile(siteFile: string, docPath: string): boolean {
  const a = components(siteFile);
  const b = components(docPath);
  if (a.length === 0 || b.length === 0) return false;
  if (a.join('/') === b.join('/')) return true;
  let k = 0;
  while (k < a.length && k < b.length && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
  const relative = !(siteFile.startsWith('/') || /^[A-Za-z]:[\\/]/.test(siteFile));
  return k === a.length ? relative || k >= 2 : k >= 2;
}

export function valueText(c: Pick<Choice, 'value' | 'n'>): string {
  return `${c.value} of ${c.n}`;
}

/** An inline value: text to show at the end of a 0-based line. */
export interface InlineChoice {
  line: number;
  text: string;
}

/** The inline values for one document at one step: one per line, calls on a line joined in order. */
export function inlineChoices(choices: readonly Choice[], step: number, docPath: string): InlineChoice[] {
  const byLine = new Map<number, string[]>();
  for (const c of choices) {
    if (c.step !== step) continue;
    const s = whereOf(c);
    if (!s || !sameFile(s.file, docPath)) continue;
    const line = s.line - 1;
    const vals = byLine.get(line) ?? [];
    vals.push(valueText(c));
    byLine.set(line, vals);
  }
  return [...byLine.entries()].sort((x, y) => x[0] - y[0]).map(([line, vals]) => ({ line, text: `Choose → ${vals.join(', ')}` }));
}

/** At most this many rows in a hover; older calls are summarised in one line. */
export const hoverRows = 40;

/**
 * hoverMarkdown is the hover text for a 0-based line: every value the Choose calls at that line
 * took along the trace up to the current step, newest last, the current step's marked. Undefined
 * when no Choose call at that line ran.
 */
export function hoverMarkdown(choices: readonly Choice[], docPath: string, line: number, currentStep?: number): string | undefined {
  const here = choices.filter((c) => {
    const s = whereOf(c);
    return s !== undefined && s.line - 1 === line && sameFile(s.file, docPath);
  });
  if (here.length === 0) return undefined;
  here.sort((x, y) => x.step - y.step);
  const name = baseName(whereOf(here[0])!.file);
  const calls = here.length === 1 ? '1 call' : `${here.length} calls`;
  const upTo = currentStep !== undefined ? ` up to step ${currentStep}` : '';
  const out = [`**cmc.Choose** at \`${name}:${line + 1}\`: ${calls} along the trace${upTo}`, ''];
  const shown = here.slice(-hoverRows);
  if (shown.length < here.length) out.push(`- … ${here.length - shown.length} earlier calls`);
  for (const c of shown) {
    const text = `step ${c.step}: ${valueText(c)}`;
    out.push(c.step === currentStep ? `- **${text}** ← this step` : `- ${text}`);
  }
  return out.join('\n');
}

function baseName(p: string): string {
  const parts = components(p);
  return parts[parts.length - 1] ?? p;
}

/** The list inside a custom response body: the body itself, or its `key` field. */
export function listOf<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body && typeof body === 'object' && Array.isArray((body as Record<string, unknown>)[key])) {
    return (body as Record<string, T[]>)[key];
  }
  return [];
}

/** The choices of a cmc/choices response, with malformed entries dropped. */
export function choicesOf(body: unknown): Choice[] {
  return listOf<Record<string, unknown>>(body, 'choices')
    .filter((c) => c && typeof c.site === 'string' && typeof c.value === 'number' && typeof c.step === 'number')
    .map((c) => {
      const out: Choice = { step: c.step as number, site: c.site as string, value: c.value as number, n: typeof c.n === 'number' ? c.n : 0 };
      if (typeof c.file === 'string' && typeof c.line === 'number') {
        out.file = c.file;
        out.line = c.line;
      }
      return out;
    });
}
