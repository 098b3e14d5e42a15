// The values Choose calls returned, as the editor shows them: inline at the call site for the
// current step, and on hover, every value one site took along the trace so far. The data comes
// from cmcdap's cmc/choices request; this file only shapes it.

import type { ChoiceHint } from './protocol.gen';

/**
 * One Choose call of the trace: in which step, where, the value and of how many. cmcdap sends
 * the site's file already resolved to this editor's path (internal/dap/sites.go decides which
 * local file a recorded one is, and verifies breakpoints by the same decision), so a document is
 * the site's file exactly when the paths are equal; line is 1-based.
 */
export type Choice = Omit<ChoiceHint, 'choice'>;

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
    if (c.file !== docPath) continue;
    const line = c.line - 1;
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
  const here = choices.filter((c) => c.line - 1 === line && c.file === docPath);
  if (here.length === 0) return undefined;
  here.sort((x, y) => x.step - y.step);
  const name = baseName(here[0].file);
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
  const parts = p.split(/[\\/]+/).filter((c) => c !== '');
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

/** The choices of a cmc/choices response, with malformed entries (no file and line) dropped. */
export function choicesOf(body: unknown): Choice[] {
  return listOf<Record<string, unknown>>(body, 'choices')
    .filter((c) => c && typeof c.site === 'string' && typeof c.value === 'number' && typeof c.step === 'number' &&
      typeof c.file === 'string' && c.file !== '' && typeof c.line === 'number')
    .map((c) => ({
      step: c.step as number,
      site: c.site as string,
      value: c.value as number,
      n: typeof c.n === 'number' ? c.n : 0,
      file: c.file as string,
      line: c.line as number,
    }));
}
