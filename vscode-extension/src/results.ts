// What cmcdap reports at the end of a minimize or a check, worded for VS Code: a notification's
// text and the action it offers (a button, never a command-line flag). No vscode import: the
// wording is unit tested.

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
