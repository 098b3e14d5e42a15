// The cmc debug type: configurations (offered, defaulted, checked) and the adapter, cmcdap, run
// as a child process speaking DAP on stdin/stdout.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AdapterFound, findCmcdap } from './adapterPath';
import { runJson } from './cli';
import { LaunchConfig, PackageModels, chooseModel, defaultDb, modelConfigurations, modelNames, registersModels, resolveLaunch } from './config';

export function isExecutable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds cmcdap for this workspace (see adapterPath.ts for the order). */
export function locateCmcdap(extensionPath: string, folder?: string): AdapterFound {
  return findCmcdap({
    setting: vscode.workspace.getConfiguration('cmc').get<string>('cmcdapPath', ''),
    extensionPath,
    platform: process.platform,
    arch: process.arch,
    env: process.env,
    home: os.homedir(),
    folder,
    isExecutable,
  });
}

/** The nearest directory at or above dir with a go.mod. */
export function moduleRoot(dir: string): string | undefined {
  for (let d = dir; ; ) {
    if (fs.existsSync(path.join(d, 'go.mod'))) return d;
    const up = path.dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/** The trace database of a workspace folder (launches and the trees agree on it). */
export function dbFor(folder: vscode.WorkspaceFolder | undefined): string | undefined {
  const setting = vscode.workspace.getConfiguration('cmc', folder?.uri).get<string>('db', '');
  if (!folder) return setting.trim() || undefined;
  return defaultDb(folder.uri.fsPath, setting, moduleRoot);
}

function activeGoFile(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  return doc && doc.uri.scheme === 'file' && doc.languageId === 'go' ? doc.uri.fsPath : undefined;
}

/** The workspace folder a launch belongs to: the given one, the active file's, or the first. */
export function folderFor(folder?: vscode.WorkspaceFolder): vscode.WorkspaceFolder | undefined {
  if (folder) return folder;
  const doc = vscode.window.activeTextEditor?.document;
  return (doc && vscode.workspace.getWorkspaceFolder(doc.uri)) ?? vscode.workspace.workspaceFolders?.[0];
}

export class CmcConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly extensionPath: string, private readonly remember: (program: string) => void) {}

  /**
   * launch.json's first configurations: one per model the workspace folder's packages register
   * (the Go files that call cmc.Register, confirmed and named by `cmcdap models`), none for a
   * folder without models. The dynamic ones (the run menu) are the same list.
   */
  async provideDebugConfigurations(folder: vscode.WorkspaceFolder | undefined, token?: vscode.CancellationToken): Promise<vscode.DebugConfiguration[]> {
    const f = folderFor(folder);
    if (!f) return [];
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'cmc: looking for models in the workspace…', cancellable: true }, async (_, cancel) => {
      const files = await vscode.workspace.findFiles(new vscode.RelativePattern(f, '**/*.go'), '{**/testdata/**,**/vendor/**,**/node_modules/**,**/.git/**}', 5000, token);
      const dirs = new Set<string>();
      for (const uri of files) {
        if (dirs.has(path.dirname(uri.fsPath))) continue;
        let src: string;
        try {
          src = fs.readFileSync(uri.fsPath, 'utf8');
        } catch {
          continue;
        }
        if (registersModels(uri.fsPath, src)) dirs.add(path.dirname(uri.fsPath));
      }
      const found: PackageModels[] = [];
      const failed: string[] = [];
      for (const dir of [...dirs].sort()) {
        if (cancel.isCancellationRequested || token?.isCancellationRequested) return [];
        try {
          found.push({ dir, models: await this.listModels(dir, f) });
        } catch (e) {
          failed.push(`${path.relative(f.uri.fsPath, dir) || '.'}: ${(e as Error).message}`);
        }
      }
      const configs = modelConfigurations(found, f.uri.fsPath);
      if (configs.length === 0) {
        const why = failed.length ? ` (${failed.join('; ')})` : '';
        void vscode.window.showWarningMessage(`cmc: no package in ${f.name} registers a model${why}: call cmc.Register(name, build) in an init function, then add a configuration`);
      } else if (failed.length) {
        void vscode.window.showWarningMessage(`cmc: some packages did not list their models: ${failed.join('; ')}`);
      }
      return configs as vscode.DebugConfiguration[];
    });
  }

  resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    const f = folderFor(folder);
    const r = resolveLaunch(config as LaunchConfig, { activeFile: activeGoFile(), folder: f?.uri.fsPath, db: dbFor(f) });
    if ('error' in r) {
      void vscode.window.showErrorMessage(r.error);
      return undefined; // abort the launch
    }
    return r.config as vscode.DebugConfiguration;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    const f = folderFor(folder);
    const r = resolveLaunch(config as LaunchConfig, { folder: f?.uri.fsPath });
    if ('error' in r) {
      void vscode.window.showErrorMessage(r.error);
      return undefined;
    }
    const chosen = await chooseModel(r.config, (program) => this.listModels(program, f), (models) =>
      Promise.resolve(vscode.window.showQuickPick(models, { title: 'Check which model?', placeHolder: `${path.basename(r.config.program ?? '')} registers ${models.length} models` })));
    if (!chosen) return undefined; // the user cancelled the pick
    if (typeof chosen.program === 'string' && chosen.bookmark === undefined) this.remember(chosen.program);
    return chosen as vscode.DebugConfiguration;
  }

  /** The models a package registers (`cmcdap models -json`, which builds it, run in its directory). */
  private listModels(program: string, folder: vscode.WorkspaceFolder | undefined): Promise<string[]> {
    const found = locateCmcdap(this.extensionPath, folder?.uri.fsPath);
    if ('error' in found) return Promise.reject(new Error(found.error));
    return Promise.resolve(vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `cmc: listing the models of ${path.basename(program)}` },
      async () => modelNames(await runJson(found.path, ['models', '-json', '.'], program, 180000)),
    ));
  }
}

export class CmcAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly extensionPath: string, private readonly log: vscode.OutputChannel) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
    const folder = session.workspaceFolder?.uri.fsPath;
    const found = locateCmcdap(this.extensionPath, folder);
    if ('error' in found) {
      const open = 'Open Settings';
      void vscode.window.showErrorMessage(found.error, open).then((a) => {
        if (a === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'cmc.cmcdapPath');
      });
      throw new Error(found.error);
    }
    this.log.appendLine(`starting ${found.path} (${found.source}) in ${folder ?? process.cwd()}`);
    return new vscode.DebugAdapterExecutable(found.path, [], folder ? { cwd: folder } : undefined);
  }
}
