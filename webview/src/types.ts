// The data the Go server shapes (internal/views); the page only draws it. Field names follow the
// Go types' JSON tags.

export interface TraceInfo {
  id: number;
  model: string;
  params?: Record<string, string>;
  kind?: string;
  message?: string;
  steps: number;
  found?: string;
}

export interface Violation {
  kind: string;
  name?: string;
  message: string;
  site?: string;
}

export interface Arrow {
  from: number;
  to: number;
  send: number;
  recv: number;
  msg: string;
  kind: "delivered" | "lost" | "dropped" | "pending";
  dup?: boolean;
}

export interface Mark {
  lifeline: number;
  kind: string;
  text?: string;
}

export interface ChartStep {
  step: number;
  lifeline: number;
  event: string;
  marks?: Mark[];
}

export interface SeqChart {
  lifelines: string[];
  steps: ChartStep[];
  arrows: Arrow[];
  violation?: string;
}

export interface TraceView {
  id: number;
  model: string;
  params?: Record<string, string>;
  steps: number;
  violation?: Violation;
  chart: SeqChart;
}

export interface Choice {
  value: number;
  n: number;
  site: string;
}

export interface Note {
  kind: string;
  from?: string;
  to?: string;
  msg?: string;
}

export interface StepView {
  step: number;
  steps: number;
  proc?: string;
  event?: string;
  site?: string;
  choices: Choice[];
  notes: Note[];
}

export interface GraphOptions {
  root?: string;
  filter?: string;
  maxDepth?: number;
  maxNodes?: number;
  expand?: number[];
}

export interface HeapView {
  dot: string;
  roots: string[];
  objects: number;
  shown: number;
  folded: number;
  changed: number;
  note?: string;
}

export interface DiffRow {
  path: string;
  kind?: "added" | "changed" | "removed";
  old?: string;
  new?: string;
}

export interface DiffFilter {
  text?: string;
  hideUnchanged?: boolean;
}

export interface DiffView {
  rows: DiffRow[];
  changes: number;
  total: number;
  matched: number;
}

export interface GotoResult {
  navigate: boolean;
}

export type Push =
  | { push: "hello"; mode: "debug" | "standalone" }
  | { push: "show"; trace: number; step: number; sent?: number };
