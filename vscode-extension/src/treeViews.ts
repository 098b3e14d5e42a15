// The Traces and Bookmarks views of the CMC container. While a cmc session runs they ask it
// (cmc/traces, cmc/bookmarks); otherwise they run `cmcdap traces -json` and `cmcdap bookmarks
// -json` on the workspace's trace database.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { runJson } from './cli';
import { hasDatabase } from './config';
import { dbFor, folderFor, locateCmcdap } from './debug';
import { CmcSessions } from './sessions';
import type { Report } from './protocol.gen';
import { reportMessage } from './results';
import { BookmarkRecord, ItemShape, TraceRecord, bookmarkItem, bookmarksOf, traceItem, tracesOf } from './trees';

/** Where the lists come from: the running session, or the command line. */
export class StoreLists {
  constructor(private readonly sessions: CmcSessions, private readonly extensionPath: string) {}

  traces(): Promise<TraceRecord[]> {
    return this.list('cmc/traces', 'traces').then(tracesOf);
  }

  bookmarks(): Promise<BookmarkRecord[]> {
    return this.list('cmc/bookmarks', 'bookmarks').then(bookmarksOf);
  }

  private async list(request: 'cmc/traces' | 'cmc/bookmarks', cli: string): Promise<unknown> {
    const c = this.sessions.any();
    if (c) {
      try {
        return await c.request(request, {});
      } catch {
        // the session may still be building or checking: fall back to the database
      }
    }
    const folder = folderFor();
    const db = dbFor(folder);
    if (!hasDatabase(db, fs.existsSync)) return [];
    const found = locateCmcdap(this.extensionPath, folder?.uri.fsPath);
    if ('error' in found) throw new Error(found.error);
    return runJson(found.path, [cli, '-json', '-db', db], folder?.uri.fsPath);
  }
}

function toItem(s: ItemShape, command?: vscode.Command): vscode.TreeItem {
  const item = new vscode.TreeItem(s.label, vscode.TreeItemCollapsibleState.None);
  item.id = s.id;
  item.description = s.description;
  item.tooltip = new vscode.MarkdownString(s.tooltip);
  item.contextValue = s.contextValue;
  item.iconPath = new vscode.ThemeIcon(s.icon);
  item.command = command;
  return item;
}

abstract class ListTree<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  view?: vscode.TreeView<T>;
  items: T[] = [];

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(parent?: T): Promise<T[]> {
    if (parent) return [];
    try {
      this.items = await this.load();
      if (this.view) this.view.message = undefined;
    } catch (e) {
      this.items = [];
      if (this.view) this.view.message = (e as Error).message;
    }
    return this.items;
  }

  protected abstract load(): Promise<T[]>;
  abstract getTreeItem(t: T): vscode.TreeItem;

  dispose(): void {
    this.changed.dispose();
  }
}

export class TraceTree extends ListTree<TraceRecord> {
  constructor(private readonly lists: StoreLists) {
    super();
  }
  protected load() {
    return this.lists.traces();
  }
  getTreeItem(t: TraceRecord): vscode.TreeItem {
    return toItem(traceItem(t, new Date()), { command: 'cmc.openTrace', title: 'Open Trace', arguments: [t] });
  }
}

export class BookmarkTree extends ListTree<BookmarkRecord> {
  constructor(private readonly lists: StoreLists) {
    super();
  }
  protected load() {
    return this.lists.bookmarks();
  }
  getTreeItem(b: BookmarkRecord): vscode.TreeItem {
    return toItem(bookmarkItem(b, new Date()));
  }
}

/**
 * The Results view: what the checks of this window found, newest first, violation or not (a check
 * without one would otherwise end in the Debug Console only). Clicking one with a trace opens it.
 */
export class ResultTree implements vscode.TreeDataProvider<Report>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly reports: Report[] = [];

  add(r: Report): void {
    this.reports.unshift(r);
    this.reports.length = Math.min(this.reports.length, 50);
    this.changed.fire();
  }

  getChildren(parent?: Report): Report[] {
    return parent ? [] : this.reports;
  }

  getTreeItem(r: Report): vscode.TreeItem {
    const m = reportMessage(r);
    const item = new vscode.TreeItem(m.label, vscode.TreeItemCollapsibleState.None);
    item.description = m.description;
    item.tooltip = new vscode.MarkdownString(m.tooltip);
    item.iconPath = new vscode.ThemeIcon(r.violation ? 'bug' : 'pass');
    if (m.open !== undefined) item.command = { command: 'cmc.openTrace', title: `Open Trace #${m.open}`, arguments: [m.open] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
