// The version of agent-ls's protocol this extension speaks, and the one
// line that tells the user when the server's differs (docs/protocol.md:
// initialize answers experimental.agent = {version, minor}).

/** The protocol this extension supports: major version and minor. */
export const supportedProtocol = { version: 1, minor: 1 };

/**
 * The notice for the user when the server speaks another protocol than
 * this extension supports, or undefined when they fit: the same major
 * version and at least our minor (a newer minor only adds). A server that
 * names no minor is older than 1.1.
 */
export function protocolNotice(experimental: unknown, serverVersion?: string): string | undefined {
  const agent = (experimental as { agent?: { version?: unknown; minor?: unknown } } | undefined)?.agent;
  const major = typeof agent?.version === 'number' ? agent.version : 0;
  const minor = typeof agent?.minor === 'number' ? agent.minor : 0;
  const want = `${supportedProtocol.version}.${supportedProtocol.minor}`;
  const server = `agent-ls${serverVersion ? ' ' + serverVersion : ''}`;
  if (major === supportedProtocol.version && minor >= supportedProtocol.minor) return undefined;
  if (major > supportedProtocol.version) {
    return `${server} speaks protocol ${major}.${minor}, newer than the ${supportedProtocol.version}.x this extension supports: update the agent-ls extension.`;
  }
  return `${server} speaks protocol ${major}.${minor}, older than the ${want} this extension needs: update agent-ls (or clear agentLs.path to use the binary in the extension).`;
}
