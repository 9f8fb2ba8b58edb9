// Tells the user when a workspace's settings set what only their own
// settings may (workspaceSettings.ts): a warning with a way to the user
// settings, and a line in the log; again only when what it sets changes.
// VS Code drops a workspace's flat "agentLs.profile" of a machine-scoped
// setting before the extension sees it, so the settings files themselves
// are read too: the user learns why the workspace's choice is not in force.

import * as vscode from 'vscode';
import { workspaceSetUserOnly } from './settings';
import { ignoredMessage, userOnlySettings, userOnlySettingsIn } from './workspaceSettings';

export class WorkspaceSettingsWarning implements vscode.Disposable {
  private shown = '';
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/settings.json');

  constructor(private readonly output: vscode.LogOutputChannel) {
    const again = () => void this.check();
    this.watcher.onDidCreate(again);
    this.watcher.onDidChange(again);
    this.watcher.onDidDelete(again);
  }

  /** Looks at the workspace's settings again; warns when what they set changed. */
  async check(): Promise<void> {
    const found = new Set(workspaceSetUserOnly(vscode.workspace.getConfiguration('agentLs')));
    for (const n of await settingsFilesSet()) found.add(n);
    const names = userOnlySettings.map((k) => `agentLs.${k}`).filter((n) => found.has(n));
    const key = names.join(',');
    if (key === this.shown) return;
    this.shown = key;
    if (!names.length) return;
    const message = ignoredMessage(names);
    this.output.warn(message);
    const open = 'Open User Settings';
    void vscode.window.showWarningMessage(message, open).then((choice) => {
      if (choice === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'agentLs');
    });
  }

  dispose(): void {
    this.watcher.dispose();
  }
}

/** The user-only settings the workspace's settings files name. */
async function settingsFilesSet(): Promise<string[]> {
  const files: { uri: vscode.Uri; workspaceFile: boolean }[] = (vscode.workspace.workspaceFolders ?? []).map((f) => ({
    uri: vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json'),
    workspaceFile: false,
  }));
  const ws = vscode.workspace.workspaceFile;
  if (ws && ws.scheme !== 'untitled') files.push({ uri: ws, workspaceFile: true });
  const names: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(f.uri));
    } catch {
      continue; // no settings file
    }
    names.push(...userOnlySettingsIn(text, f.workspaceFile));
  }
  return names;
}
