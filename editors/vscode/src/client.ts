// Starts agent-ls over stdio with vscode-languageclient: the binary, its
// environment (with the API key from SecretStorage), the settings as
// initializationOptions, and the experimental.agent opt-ins.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
  type ClientCapabilities,
  TransportKind,
} from 'vscode-languageclient/node';
import { protocolNotice } from './protocolVersion';
import { agentSettings, readSettingsFrom, serverCommand, serverEnvironment, type Settings } from './settings';

export const secretKey = 'agentLs.apiKey';

export function readSettings(): Settings {
  return readSettingsFrom(vscode.workspace.getConfiguration('agentLs'));
}

/** The binary packaged in the .vsix for this platform, if there is one. */
export function bundledBinary(extensionPath: string): string | undefined {
  const name = process.platform === 'win32' ? 'agent-ls.exe' : 'agent-ls';
  const p = path.join(extensionPath, 'bin', name);
  if (!fs.existsSync(p)) return undefined;
  if (process.platform !== 'win32') {
    try {
      // A .vsix unpacked by some tools loses the executable bit.
      fs.accessSync(p, fs.constants.X_OK);
    } catch {
      fs.chmodSync(p, 0o755);
    }
  }
  return p;
}

/**
 * Opts into the agent/* surface (protocol section 1); review (section
 * 5.5) when the user turned on agentLs.reviewChanges; the model's
 * questions (agent/askUser) as cards in the view; questions about code
 * (agent/languageQuery) answered by VS Code's language features.
 */
function agentCapabilities(review: boolean): StaticFeature {
  return {
    fillClientCapabilities(caps: ClientCapabilities) {
      caps.experimental = { ...(caps.experimental as object | undefined), agent: { events: true, approvals: true, review, questions: true, language: true } };
    },
    initialize() {},
    getState() {
      return { kind: 'static' };
    },
    clear() {},
  };
}

export async function createClient(ctx: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<LanguageClient> {
  const settings = readSettings();
  const apiKey = await ctx.secrets.get(secretKey);
  const command = serverCommand(settings, bundledBinary(ctx.extensionPath));
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const server: ServerOptions = {
    command,
    args: ['serve', '--stdio', '--log-level', 'info'],
    transport: TransportKind.stdio,
    options: { env: serverEnvironment(process.env, apiKey), cwd },
  };
  output.info(`starting ${command}`);
  const options: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }],
    outputChannel: output,
    initializationOptions: agentSettings(settings, vscode.workspace.isTrusted),
    // Requests the server makes of the user (approvals) are ours to show;
    // the server's own messages still go to the log.
    revealOutputChannelOn: 4, // RevealOutputChannelOn.Never
  };
  const client = new LanguageClient('agentLs', 'agent-ls', server, options);
  client.registerFeature(agentCapabilities(settings.reviewChanges));
  return client;
}

/**
 * The agent-ls process behind the extension: started on first use,
 * restarted when the binary or the API key changes.
 */
export class Server {
  private client?: LanguageClient;
  private starting?: Promise<LanguageClient>;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    /** Hooks the extension's handlers on a client before it starts. */
    private readonly wire: (c: LanguageClient) => void,
    /** Called when a restart drops the old process's sessions. */
    private readonly onRestart: () => void,
    /** Called once a new process runs, before anyone else uses it. */
    private readonly onStarted?: (c: LanguageClient) => Promise<void>,
  ) {}

  /** The running client, if agent-ls has been started. */
  get running(): LanguageClient | undefined {
    return this.client;
  }

  get(): Promise<LanguageClient> {
    if (this.client) return Promise.resolve(this.client);
    this.starting ??= (async () => {
      const c = await createClient(this.ctx, this.output);
      this.wire(c);
      await c.start();
      const notice = protocolNotice(c.initializeResult?.capabilities.experimental, c.initializeResult?.serverInfo?.version);
      if (notice) {
        this.output.warn(notice);
        void vscode.window.showWarningMessage(notice);
      }
      await this.onStarted?.(c).catch((e) => this.output.warn(`after start: ${e instanceof Error ? e.message : String(e)}`));
      this.client = c;
      return c;
    })().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Restarts agent-ls if it runs (new settings or key); else nothing. */
  async restart(): Promise<void> {
    const old = this.client;
    if (!old) return;
    this.client = undefined;
    this.onRestart();
    await old.stop().catch(() => undefined);
    await this.get();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.stop();
  }
}
