// The extension's settings as agent-ls receives them (protocol sections 1
// and 9), and the environment it starts agent-ls with. Pure: the callers
// read VS Code's configuration and pass it in.

import { setByWorkspace, userOnlySettings, userValue, type Inspected } from './workspaceSettings';

export interface Settings {
  path: string;
  model: string;
  profile: string;
  /** One of the providers of the user's config file (model_provider). */
  modelProvider: string;
  approvalPolicy: string;
  sandboxMode: string;
  /** The network of sandboxed commands: off, ask or on; narrowing only. */
  network: string;
  /** Review each change before it is applied (protocol section 5.5). */
  reviewChanges: boolean;
}

/** The part of VS Code's configuration (section agentLs) settings are read from. */
export interface ConfigurationReader {
  get<T>(key: string, defaultValue: T): T;
  inspect(key: string): Inspected | undefined;
}

/**
 * The settings in force: those a workspace may not choose from the user's
 * own settings only (workspaceSettings.ts says which and why), the rest
 * as VS Code merges them.
 */
export function readSettingsFrom(c: ConfigurationReader): Settings {
  return {
    path: userValue(c.inspect('path'), ''),
    model: c.get<string>('model', ''),
    profile: userValue(c.inspect('profile'), ''),
    modelProvider: userValue(c.inspect('modelProvider'), ''),
    approvalPolicy: userValue(c.inspect('approvalPolicy'), ''),
    sandboxMode: userValue(c.inspect('sandboxMode'), ''),
    network: userValue(c.inspect('network'), ''),
    reviewChanges: userValue(c.inspect('reviewChanges'), false),
  };
}

/** The user-only settings the workspace sets, which readSettingsFrom left out. */
export function workspaceSetUserOnly(c: ConfigurationReader): string[] {
  return userOnlySettings.filter((k) => setByWorkspace(c.inspect(k))).map((k) => `agentLs.${k}`);
}

/** The keys of protocol section 9 that VS Code settings carry, camelCase. */
export type AgentSettings = Partial<Pick<Settings, 'model' | 'profile' | 'modelProvider' | 'approvalPolicy' | 'sandboxMode' | 'network'>>;

/**
 * What agent-ls is told at initialize and on every change. An untrusted
 * workspace gets a read-only sandbox and the policy that asks for all but
 * known read-only commands, whatever the settings say.
 */
export function agentSettings(s: Settings, trusted: boolean): AgentSettings {
  const out: AgentSettings = {};
  if (s.model) out.model = s.model;
  if (s.profile) out.profile = s.profile;
  if (s.modelProvider) out.modelProvider = s.modelProvider;
  if (s.approvalPolicy) out.approvalPolicy = s.approvalPolicy;
  if (s.sandboxMode) out.sandboxMode = s.sandboxMode;
  if (s.network) out.network = s.network;
  if (!trusted) {
    out.approvalPolicy = 'untrusted';
    out.sandboxMode = 'read-only';
  }
  return out;
}

/** The workspace/didChangeConfiguration params (section agentLs). */
export function configurationChange(s: AgentSettings): { settings: { agentLs: AgentSettings } } {
  return { settings: { agentLs: s } };
}

/** The environment variable agent-ls reads the OpenAI key from by default. */
export const apiKeyVariable = 'OPENAI_API_KEY';

/**
 * agent-ls gets the extension's environment unchanged (OPENAI_BASE_URL and
 * the rest pass through), plus the key from SecretStorage when one is set.
 */
export function serverEnvironment(base: NodeJS.ProcessEnv, apiKey: string | undefined): NodeJS.ProcessEnv {
  const env = { ...base };
  if (apiKey) env[apiKeyVariable] = apiKey;
  return env;
}

/**
 * Which binary to run: the user's agentLs.path, else the one packaged in
 * the extension (when it is there), else agent-ls from PATH.
 */
export function serverCommand(s: Settings, bundled: string | undefined): string {
  if (s.path) return s.path;
  return bundled ?? 'agent-ls';
}

/**
 * The settings whose change needs a new server process: the binary, and
 * reviewing changes, which the client declares at initialize.
 */
export function needsRestart(before: Settings, after: Settings): boolean {
  return before.path !== after.path || before.reviewChanges !== after.reviewChanges;
}
