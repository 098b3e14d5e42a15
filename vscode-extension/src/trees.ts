// What the Traces and Bookmarks views show for each stored trace and bookmark. The records come
// from cmcdap (the cmc/traces and cmc/bookmarks requests, or `cmcdap traces -json` and `cmcdap
// bookmarks -json` when no session runs); this file shapes them into tree items without vscode,
// so the wording is unit tested.

import { escapeMarkdown, listOf } from './choices';
import type { Bookmark, TraceInfo } from './protocol.gen';

/** A stored trace as the lists read it: tracesOf checks id, model and length, not the rest. */
export type TraceRecord = Pick<TraceInfo, 'id' | 'model' | 'length'> & Partial<TraceInfo>;

/** A bookmark as the lists read it: bookmarksOf checks name, trace and step, not the rest. */
export type BookmarkRecord = Pick<Bookmark, 'name' | 'trace' | 'step'> & Partial<Bookmark>;

/** A tree item without the vscode types: the glue maps it one to one. */
export interface ItemShape {
  id: string;
  label: string;
  description: string;
  tooltip: string; // markdown
  contextValue: 'cmcTrace' | 'cmcBookmark';
  icon: string; // a codicon id
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", or the date for older times. */
export function ago(when: string | undefined, now: Date): string {
  if (!when) return '';
  const t = new Date(when);
  if (Number.isNaN(t.getTime())) return '';
  const s = Math.round((now.getTime() - t.getTime()) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 7 * 86400) {
    const d = Math.round(s / 86400);
    return d === 1 ? 'yesterday' : `${d} days ago`;
  }
  return t.toISOString().slice(0, 10);
}

/** What went wrong, in a word or two: "invariant NoLoop", "panic", "random walk". */
export function kindText(t: Pick<TraceRecord, 'kind' | 'name'>): string {
  if (!t.kind) return 'random walk';
  return t.name ? `${t.kind} ${t.name}` : t.kind;
}

function paramText(p: Record<string, string> | undefined): string {
  if (!p) return '';
  const keys = Object.keys(p).sort();
  return keys.length ? ` (${keys.map((k) => `${k}=${p[k]}`).join(' ')})` : '';
}

function steps(n: number): string {
  return n === 1 ? '1 step' : `${n} steps`;
}

/**
 * A recorded site as people read it: its directory, file and line (aodv/route.go:88), as
 * engine.ShortSite writes it; never an absolute path of the machine that checked it.
 */
export function shortSite(site: string): string {
  const parts = site.split(/[\\/]+/);
  return parts.slice(-2).join('/');
}

export function traceItem(t: TraceRecord, now: Date): ItemShape {
  const when = ago(t.found, now);
  const derived = t.from ? `${t.how || 'made'} from #${t.from}` : '';
  const description = [kindText(t), steps(t.length), derived, when].filter(Boolean).join(' · ');
  const tip = [`**Trace #${t.id}**: ${escapeMarkdown(t.model + paramText(t.params))}`, ''];
  if (derived) tip.push(`${derived[0].toUpperCase()}${derived.slice(1)}.`, '');
  if (t.message) tip.push(`${kindText(t)}: ${escapeMarkdown(t.message)}`, '');
  if (t.site) tip.push(`at \`${shortSite(t.site)}\``, '');
  tip.push(`${steps(t.length)}${t.found ? `, found ${new Date(t.found).toLocaleString()}` : ''}`);
  if (t.seen && t.seen > 1) tip.push('', `found ${t.seen} times`);
  tip.push('', 'Click to open it in the debugger; right-click to minimize it or export it as a Go test.');
  return {
    id: `trace:${t.id}`,
    label: `#${t.id} ${t.model}`,
    description,
    tooltip: tip.join('\n'),
    contextValue: 'cmcTrace',
    icon: t.kind ? 'bug' : 'debug-alt-small',
  };
}

export function bookmarkItem(b: BookmarkRecord, now: Date): ItemShape {
  const when = ago(b.created, now);
  const description = [`trace #${b.trace} step ${b.step}`, when].filter(Boolean).join(' · ');
  const tip = [`**${escapeMarkdown(b.name)}**: trace #${b.trace}, step ${b.step}`];
  if (b.note) tip.push('', escapeMarkdown(b.note));
  tip.push('', 'Right-click to re-check from this state, rename or delete it.');
  return {
    id: `bookmark:${b.name}`,
    label: b.name,
    description,
    tooltip: tip.join('\n'),
    contextValue: 'cmcBookmark',
    icon: 'bookmark',
  };
}

/** The traces of a response or CLI output, newest first, malformed records dropped. */
export function tracesOf(body: unknown): TraceRecord[] {
  return listOf<TraceRecord>(body, 'traces')
    .filter((t) => t && typeof t.id === 'number' && typeof t.model === 'string')
    .map((t) => ({ ...t, length: typeof t.length === 'number' ? t.length : 0 }))
    .sort((a, b) => b.id - a.id);
}

/** The bookmarks of a response or CLI output, by name. */
export function bookmarksOf(body: unknown): BookmarkRecord[] {
  return listOf<BookmarkRecord>(body, 'bookmarks')
    .filter((b) => b && typeof b.name === 'string' && typeof b.trace === 'number')
    .map((b) => ({ ...b, step: typeof b.step === 'number' ? b.step : 0 }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A bookmark name must be non-empty and one line; the message says why not. */
export function checkBookmarkName(name: string, taken: readonly string[] = []): string | undefined {
  const n = name.trim();
  if (n === '') return 'Give the bookmark a name';
  if (/[\r\n]/.test(n)) return 'A bookmark name is one line';
  if (taken.includes(n)) return `A bookmark named "${n}" exists already`;
  return undefined;
}

/** The step a Call Stack frame shows: its name starts with "#N". */
export function stepOfFrame(frame: { name?: string } | undefined): number | undefined {
  const m = frame?.name ? /^#(\d+)\b/.exec(frame.name) : null;
  return m ? Number(m[1]) : undefined;
}

/** The debug session of the Call Stack frame a context-menu command was run on (its sessionId). */
export function frameSessionOf(args: readonly unknown[]): string | undefined {
  for (const a of args) {
    if (typeof a === 'object' && a !== null && typeof (a as { sessionId?: unknown }).sessionId === 'string') {
      return (a as { sessionId: string }).sessionId;
    }
  }
  return undefined;
}

/**
 * The step of the Call Stack frame a context-menu command was run on, from the arguments VS Code
 * passes: first the frame's source URI (a string), then {sessionId, threadId, frameId, frameName}
 * where frameId is VS Code's own id ("stackframe:..."), not the adapter's. cmcdap names every
 * frame "#STEP ...", so frameName says the step; a numeric frameId (other clients) is looked up in
 * the frames the session reported. undefined when no argument says which frame it was.
 */
export function frameStepOf(args: readonly unknown[], frames: ReadonlyMap<number, { step: number }>): number | undefined {
  for (const a of args) {
    if (typeof a !== 'object' || a === null) continue;
    const ctx = a as { frameId?: unknown; frameName?: unknown };
    const named = typeof ctx.frameName === 'string' ? stepOfFrame({ name: ctx.frameName }) : undefined;
    if (named !== undefined) return named;
    if (typeof ctx.frameId === 'number') {
      const f = frames.get(ctx.frameId);
      if (f) return f.step;
    }
  }
  return undefined;
}

/** The traces to compare trace id with, for a quick pick: every other one, newest first. */
export function compareChoices(traces: readonly TraceRecord[], id: number): { label: string; description: string; id: number }[] {
  return traces
    .filter((t) => t.id !== id)
    .sort((a, b) => b.id - a.id)
    .map((t) => ({ label: `#${t.id} ${t.model}`, description: [kindText(t), steps(t.length)].filter(Boolean).join(' · '), id: t.id }));
}

/**
 * The bookmark "Check from Here" makes for step `step` of trace `trace`: "from #T step N", the
 * existing one when a bookmark of that name marks the same place, else the name with a number
 * that is free ("from #T step N (2)"). reuse says whether the bookmark is there already.
 */
export function hereBookmark(bookmarks: readonly BookmarkRecord[], trace: number | undefined, step: number): { name: string; reuse: boolean } {
  const base = trace !== undefined ? `from #${trace} step ${step}` : `from step ${step}`;
  for (let i = 1; ; i++) {
    const name = i === 1 ? base : `${base} (${i})`;
    const b = bookmarks.find((x) => x.name === name);
    if (!b) return { name, reuse: false };
    if (b.trace === trace && b.step === step) return { name, reuse: true };
  }
}
