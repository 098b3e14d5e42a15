// The values Choose calls returned, as the editor shows them: inline at the call site for the
// current step, and on hover, every value one site took along the trace so far. The data comes
// from cmcdap's cmc/choices request; this file only shapes it.

import type { ChoiceHint } from './protocol.gen';

/**
 * One Choose call of the trace: in which step, where, the value and of how many, and what the
 * value means when the model said (cmc.ChooseOf). cmcdap sends the site's file already resolved
 * to this editor's path (internal/dap/sites.go decides which local file a recorded one is, and
 * verifies breakpoints by the same decision), so a document is the site's file exactly when the
 * paths are equal; line is 1-based. site is for people: relative to the workspace.
 */
export type Choice = Omit<ChoiceHint, 'choice'>;

/** "0 of 2", or with the model's label "0 of 2: deliver RREP C→A" (engine.Choice.String). */
export function valueText(c: Pick<Choice, 'value' | 'n' | 'label'>): string {
  return c.label ? `${c.value} of ${c.n}: ${c.label}` : `${c.value} of ${c.n}`;
}

/**
 * The longest text shown with a Choose call, in characters: its CodeLens (inline.ts) does not
 * wrap, so a longer one would run past a narrow editor. The hover has it all.
 */
export const maxInline = 60;

/** text shortened to max characters, ending in an ellipsis when it was longer. */
export function clip(text: string, max = maxInline): string {
  const chars = [...text]; // by code point: a label may hold arrows or other non-ASCII
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

/** A Choose value to show with a 0-based line (above it, as a CodeLens). */
export interface InlineChoice {
  line: number;
  text: string;
}

/**
 * The Choose values for one document at one step: one per line, calls on a line joined in order,
 * at most maxInline characters (the hover on the line shows every label whole).
 */
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
  return [...byLine.entries()].sort((x, y) => x[0] - y[0]).map(([line, vals]) => ({ line, text: clip(`Choose → ${vals.join(', ')}`) }));
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
    const text = `step ${c.step}: ${escapeMarkdown(valueText(c))}`;
    out.push(c.step === currentStep ? `- **${text}** ← this step` : `- ${text}`);
  }
  return out.join('\n');
}

/** s with Markdown's inline markup escaped (the text follows "- step N: "): a label is plain text. */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_[\]<>~]/g, (ch) => `\\${ch}`);
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
      ...(typeof c.label === 'string' && c.label !== '' ? { label: c.label } : {}),
    }));
}
