// What cmcdap reports at the end of a minimize or a check, worded for VS Code: a notification's
// text and the action it offers (a button, never a command-line flag). No vscode import: the
// wording is unit tested.

import { escapeMarkdown } from './choices';
import type { LineCoverage, Report } from './protocol.gen';

/** What `cmcdap minimize -json` prints (cmd/cmcdap/minimize.go, minimizeResult). */
export interface MinimizeResult {
  trace: number;
  steps: number;
  stored?: number;
  short_steps: number;
  shortest: boolean;
  states: number;
}

/** How far the next minimize searches when the last one stopped at its bound. */
export const minimizeGrowth = 10;

export interface MinimizeMessage {
  text: string;
  /** The trace to open, when a shorter one was stored. */
  open?: number;
  /** A shorter trace may exist: the state bound a retry should use, and its button. */
  retry?: { states: number; label: string };
}

/** parseMinimize checks the output of `cmcdap minimize -json`. */
export function parseMinimize(out: string): MinimizeResult {
  const r = JSON.parse(out) as MinimizeResult;
  if (typeof r?.trace !== 'number' || typeof r.short_steps !== 'number' || typeof r.shortest !== 'boolean' || typeof r.states !== 'number') {
    throw new Error(`cmcdap minimize -json: unexpected output ${out.slice(0, 80)}`);
  }
  return r;
}

export function minimizeMessage(r: MinimizeResult): MinimizeMessage {
  const steps = (n: number) => (n === 1 ? '1 step' : `${n} steps`);
  const m: MinimizeMessage = {
    text: r.stored
      ? `cmc: trace #${r.stored} is trace #${r.trace} in ${steps(r.short_steps)} instead of ${r.steps}`
      : `cmc: trace #${r.trace} (${steps(r.steps)}) is minimal already`,
    open: r.stored || undefined,
  };
  if (r.shortest) {
    m.text += ': no shorter trace ends in the same violation.';
  } else {
    const next = r.states * minimizeGrowth;
    m.text += `: no step can be left out, but the search for the shortest trace stopped at ${thousands(r.states)} states, so a shorter one may exist.`;
    m.retry = { states: next, label: `Search ${thousands(next)} States` };
  }
  return m;
}

/** 3306004 -> "3,306,004". */
export function thousands(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}


/** What the editor says about a finished check (the cmc/result event). */
export interface ReportMessage {
  /** The notification, or undefined when the debugger showing the new trace says it all. */
  notify?: string;
  /** The result view's line: label, description and tooltip (markdown). */
  label: string;
  description: string;
  tooltip: string;
  /** The trace to offer to open. */
  open?: number;
}

function seconds(s: number): string {
  return s < 10 ? `${s.toFixed(2)} s` : `${Math.round(s)} s`;
}

/** The line coverage of a check that measured it ("coverage": true): "18 of 27 lines (67%)". */
export function linesCovered(c: LineCoverage | undefined): string | undefined {
  if (!c || c.lines === 0) {
    return undefined;
  }
  return `${thousands(c.covered)} of ${thousands(c.lines)} lines (${Math.round((100 * c.covered) / c.lines)}%)`;
}

export function reportMessage(r: Report): ReportMessage {
  const coverage = r.cancelled ? 'cancelled' : r.complete ? 'complete' : 'not complete (bounded)';
  const lines = linesCovered(r.coverage);
  const size = `${thousands(r.states)} states · ${seconds(r.seconds)} · ${coverage}${lines ? ` · ${lines}` : ''}`;
  const from = r.bookmark ? ` from bookmark "${r.bookmark.name}"` : '';
  let what: string;
  if (!r.violation) {
    what = r.cancelled ? 'cancelled, no violation so far' : 'no violation';
  } else if (r.known) {
    what = `${r.violation}: the same steps as trace #${r.trace}, found before (not stored again)`;
  } else {
    what = r.trace ? `${r.violation} (trace #${r.trace}, ${r.steps} steps)` : r.violation;
  }
  const m: ReportMessage = {
    label: `${r.model}${from}: ${r.violation ? (r.known ? `violation, trace #${r.trace} again` : 'violation') : 'no violation'}`,
    description: size,
    tooltip: [`**${escapeMarkdown(r.model)}**${escapeMarkdown(from)}: ${escapeMarkdown(what)}`, '', `${thousands(r.states)} states, ${thousands(r.transitions)} transitions, depth ${r.depth}, ${seconds(r.seconds)}; ${coverage}`]
      .concat(lines ? ['', `coverage of the code: ${lines} in ${r.coverage!.files === 1 ? '1 file' : `${r.coverage!.files} files`}`] : [])
      .concat(r.comparison ? ['', escapeMarkdown(r.comparison)] : [])
      .join('\n'),
    open: r.trace || (r.violation ? undefined : r.bookmark?.trace),
  };
  // A new violation opens in the debugger; anything else would end unseen in the console.
  if (!r.violation || r.known || r.bookmark) {
    m.notify = r.comparison ? `cmc: ${r.model}${from}: ${r.comparison}${lines ? `; ${lines} covered` : ''}` : `cmc: ${r.model}: ${what} in ${size}`;
  }
  return m;
}
