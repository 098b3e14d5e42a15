// A `:goto` typed in the Debug Console moves the debugger, and VS Code then opens the new step's
// source with the keyboard focus (debug.focusEditorOnBreak), so what the user types next lands in
// the model's source. ReplFocus notes that a stop came from the console, so the extension gives
// the focus back to it once VS Code has shown the new step. No vscode import: unit tested.

type Message = { type?: string; command?: string; event?: string; seq?: number; request_seq?: number; success?: boolean; arguments?: { context?: string; expression?: string } };

/** Whether an evaluate typed in the Debug Console moves the debugger (`:goto N`). */
export function movesFromConsole(m: Message): boolean {
  return m.type === 'request' && m.command === 'evaluate' && m.arguments?.context === 'repl' && /^\s*:goto\b/.test(m.arguments.expression ?? '');
}

export class ReplFocus {
  private asked?: number; // seq of a console :goto whose stop has not come yet
  private owed = false;

  /** A message to the adapter. */
  sent(m: Message): void {
    if (movesFromConsole(m)) this.asked = m.seq ?? -1;
  }

  /** A message from the adapter. */
  received(m: Message): void {
    if (m.type === 'response' && m.request_seq === this.asked && !m.success) this.asked = undefined; // no stop follows
    if (m.type === 'event' && m.event === 'stopped') {
      this.owed = this.asked !== undefined;
      this.asked = undefined;
    }
  }

  /** Whether the focus belongs back in the Debug Console now (once per console stop). */
  take(): boolean {
    const owed = this.owed;
    this.owed = false;
    return owed;
  }
}
