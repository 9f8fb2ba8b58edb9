// The settings a workspace may not choose (protocol section 9: what runs,
// how far the sandbox and approvals reach, where requests and keys go),
// read from the user's own settings only, and what the user is told when
// a workspace sets them anyway. Pure: the callers read VS Code's
// configuration and the workspace's settings files and pass them in.

/**
 * The agentLs settings only user (or remote) settings may set. Each is
 * machine-scoped in package.json, so VS Code leaves a workspace's value
 * out; the extension reads the user's value of each itself too, because
 * VS Code checks the scope of a flat key only: a workspace's nested
 * `"agentLs": { "profile": ... }` is still merged in.
 *
 * - path: the binary that runs.
 * - profile: a profile of the user's config file may name another
 *   provider (base URL, key variable) and wider policies.
 * - modelProvider: the provider decides where prompts and code go.
 * - approvalPolicy, sandboxMode: agent-ls takes the editor's values over
 *   the config file's; it cannot tell a user's from a workspace's.
 * - network: agent-ls lets it only narrow the config's, but a workspace
 *   must not even choose that for the user.
 * - reviewChanges: a workspace could turn the user's review off.
 *
 * agentLs.model stays a workspace setting, as `model` is one a project's
 * .agent-ls/config.toml may set: it goes to the user's own provider.
 */
export const userOnlySettings = ['path', 'profile', 'modelProvider', 'approvalPolicy', 'sandboxMode', 'network', 'reviewChanges'] as const;

export type UserOnlySetting = (typeof userOnlySettings)[number];

/** A setting's value at each level, as WorkspaceConfiguration.inspect gives it. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The user's value of a user-only setting: the user (or remote) settings',
 * else the default; a value of the wrong type counts as unset.
 */
export function userValue<T extends string | boolean>(i: Inspected | undefined, fallback: T): T {
  for (const v of [i?.globalValue, i?.defaultValue]) {
    if (typeof v === typeof fallback) return v as T;
  }
  return fallback;
}

/** Whether a workspace or one of its folders sets the setting. */
export function setByWorkspace(i: Inspected | undefined): boolean {
  return i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined;
}

/**
 * The user-only settings a workspace settings file sets, as full names
 * (agentLs.profile). text is a .vscode/settings.json, or a .code-workspace
 * file (workspaceFile) whose settings are under "settings". Both forms
 * count: "agentLs.profile" and "agentLs": { "profile": ... }. A file that
 * does not parse sets nothing here (VS Code's own check still applies).
 */
export function userOnlySettingsIn(text: string, workspaceFile: boolean): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(withoutComments(text));
  } catch {
    return [];
  }
  const settings = workspaceFile ? field(doc, 'settings') : doc;
  const found = new Set<string>();
  for (const name of userOnlySettings) {
    if (field(settings, `agentLs.${name}`) !== undefined || field(field(settings, 'agentLs'), name) !== undefined) {
      found.add(`agentLs.${name}`);
    }
  }
  return [...found];
}

function field(o: unknown, key: string): unknown {
  if (typeof o !== 'object' || o === null || Array.isArray(o) || !Object.hasOwn(o, key)) return undefined;
  return (o as Record<string, unknown>)[key];
}

/**
 * JSON with comments (VS Code's settings files) as JSON: comments and
 * trailing commas dropped, strings left as they are.
 */
export function withoutComments(text: string): string {
  // Comments first; then the commas they may have stood after.
  return outsideStrings(outsideStrings(text.replace(/^\uFEFF/, ''), dropComment), dropTrailingComma);
}

/** How many characters at i to drop (0: none), and what to put instead. */
type Dropper = (src: string, i: number) => { drop: number; put?: string };

/** src with drop applied at each place outside a JSON string. */
function outsideStrings(src: string, drop: Dropper): string {
  let out = '';
  for (let i = 0; i < src.length; ) {
    if (src[i] === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const d = drop(src, i);
    if (d.drop > 0) {
      out += d.put ?? '';
      i += d.drop;
    } else {
      out += src[i++];
    }
  }
  return out;
}

const dropComment: Dropper = (src, i) => {
  if (src.startsWith('//', i)) {
    const nl = src.indexOf('\n', i);
    return { drop: (nl < 0 ? src.length : nl) - i };
  }
  if (src.startsWith('/*', i)) {
    const end = src.indexOf('*/', i + 2);
    return { drop: (end < 0 ? src.length : end + 2) - i, put: ' ' };
  }
  return { drop: 0 };
};

const dropTrailingComma: Dropper = (src, i) => {
  if (src[i] !== ',') return { drop: 0 };
  let j = i + 1;
  while (j < src.length && /\s/.test(src[j])) j++;
  return { drop: src[j] === '}' || src[j] === ']' ? 1 : 0 };
};

/** What the user is told when a workspace sets user-only settings. */
export function ignoredMessage(names: string[]): string {
  const list = names.join(', ');
  const them = names.length === 1 ? 'it' : 'them';
  return `Agent: this workspace's settings set ${list}; agent-ls ignores ${them} there. Only your user settings may choose what runs, the sandbox, approvals and the profile.`;
}
