// The agent-ls wire types the extension reads (protocol sections 2, 3 and 6).
// Unknown fields are ignored, as the protocol asks of both sides.

export interface EventBase {
  sessionId: string;
  turnId: string;
  seq: number;
  type: string;
}

export interface FileChangeEntry {
  uri: string;
  kind: 'add' | 'update' | 'delete' | 'move';
  newUri?: string;
  additions: number;
  deletions: number;
}

export interface PlanStep {
  step: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface Tokens {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

export type AgentEvent = EventBase & {
  prompt?: string;
  itemId?: string;
  delta?: string;
  text?: string;
  callId?: string;
  tool?: string;
  kind?: string;
  title?: string;
  arguments?: unknown;
  server?: string;
  stream?: 'stdout' | 'stderr';
  chunk?: string;
  status?: string;
  output?: string;
  durationMs?: number;
  changes?: FileChangeEntry[];
  diff?: string;
  explanation?: string;
  steps?: PlanStep[];
  approvalId?: string;
  decision?: string;
  total?: Tokens;
  contextTokens?: number;
  contextWindow?: number;
  rateLimits?: RateLimits;
  query?: string;
  sources?: { url: string; title?: string }[];
  attempt?: number;
  delayMs?: number;
  message?: string;
  summary?: string;
  error?: string;
  lastMessage?: string;
  /** terminalStarted: the argv (the shell, its flag, the command line). */
  command?: string[];
  cwd?: string;
  tty?: boolean;
  terminalId?: string;
  data?: string;
  exitCode?: number;
  /** queueChanged: the whole queue, first to run first. */
  items?: QueuedPrompt[];
  paused?: boolean;
  /** steered: the waiting prompt the message came from. */
  queuedTurnId?: string;
  /** modeChanged: the session's mode now. */
  mode?: SessionMode;
  /** rewound: the turns that left the conversation (agent/rewind). */
  turnIds?: string[];
  /** networkAccess: one connection of a sandboxed command through the proxy. */
  host?: string;
  port?: number;
  bytes?: number;
} & Partial<Tokens>;

/** A prompt waiting in a session's queue (protocol section 2.1). */
export interface QueuedPrompt {
  turnId: string;
  prompt: string;
  /** The mode the session takes when it starts: `default` for an approved plan. */
  mode?: SessionMode;
}

export type SessionMode = 'default' | 'plan';

/** agent/languageQuery's params: a question about code for the editor's language features. */
export interface LanguageQueryParams {
  sessionId: string;
  turnId: string;
  callId?: string;
  kind: 'definition' | 'references' | 'hover' | 'diagnostics' | 'workspaceSymbols' | 'documentSymbols' | 'rename';
  uri?: string;
  position?: { line: number; character: number };
  query?: string;
  newName?: string;
  includeDeclaration?: boolean;
}

/** agent/askUser's params: the model's questions (one to three). */
export interface AskUserParams {
  sessionId: string;
  turnId: string;
  /** The request_user_input call's id (its toolCall event). */
  callId?: string;
  questions: Question[];
}

export interface Question {
  id: string;
  header: string;
  question: string;
  options: { label: string; description?: string }[];
}

/** One answer: an option's label, or the user's own text ("Other"). */
export interface QuestionAnswer {
  id: string;
  label?: string;
  text?: string;
}

export interface ApprovalParams {
  sessionId: string;
  turnId: string;
  approvalId: string;
  kind: 'exec' | 'patch' | 'tool' | 'network' | string;
  /** The words of a command; for kind network, the command that connects as one string. */
  command?: string[] | string;
  /** Kind network: the host and port asked about, the allowed_domains entries "always" may write. */
  host?: string;
  port?: number;
  patterns?: string[];
  cwd?: string;
  reason?: string;
  diff?: string;
  files?: string[];
  tool?: string;
  server?: string;
  arguments?: unknown;
  options?: string[];
}

export type Decision = 'allowOnce' | 'allowAlways' | 'allowPersist' | 'rejectOnce' | 'rejectAlways' | 'abort';

export interface SessionInfo {
  sessionId: string;
  cwd: string;
  model: string;
  approvalPolicy: string;
  sandboxMode: string;
  mode?: SessionMode;
}

export interface TurnRef {
  sessionId: string;
  turnId: string;
  /** The prompt waits in the session's queue (a turn was running). */
  queued?: boolean;
  /** onTurnEnded: how the turn ended. */
  status?: string;
}

/** agent/steer's result: the turn the message went to, or started. */
export interface SteerResult {
  turnId: string;
  started: boolean;
}

export interface ContextEntry {
  uri: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  diagnostics?: unknown[];
}

/** agent/requestReview's params (protocol section 5.5). */
export interface ReviewParams {
  sessionId: string;
  turnId: string;
  callId: string;
  /** In the order of diff; hunks counts the file's hunks there. */
  changes: (FileChangeEntry & { hunks: number })[];
  diff: string;
}

export interface HunkAnswer {
  uri: string;
  index: number;
  accept: boolean;
}

export interface ReviewAnswer {
  decision: 'accept' | 'reject';
  hunks?: HunkAnswer[];
  comment?: string;
}

export interface SessionSummary {
  sessionId: string;
  cwd: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
}

export interface ResumedSession {
  sessionId: string;
  cwd: string;
  model: string;
  mode?: SessionMode;
  items: AgentEvent[];
}

export const Methods = {
  event: 'agent/event',
  requestApproval: 'agent/requestApproval',
  requestReview: 'agent/requestReview',
  listSessions: 'agent/listSessions',
  resumeSession: 'agent/resumeSession',
  newSession: 'agent/newSession',
  startTurn: 'agent/startTurn',
  interrupt: 'agent/interrupt',
  undoTurn: 'agent/undoTurn',
  rewind: 'agent/rewind',
  updateQueued: 'agent/updateQueued',
  removeQueued: 'agent/removeQueued',
  resumeQueue: 'agent/resumeQueue',
  steer: 'agent/steer',
  writeTerminal: 'agent/writeTerminal',
  killTerminal: 'agent/killTerminal',
  askUser: 'agent/askUser',
  languageQuery: 'agent/languageQuery',
  setMode: 'agent/setMode',
  approvePlan: 'agent/approvePlan',
  completeMention: 'agent/completeMention',
} as const;

/** A provider's rate limits left (a usage event's rateLimits, from its x-ratelimit-* headers). */
export interface RateLimits {
  remainingRequests?: number;
  remainingTokens?: number;
  resetRequestsMs?: number;
  resetTokensMs?: number;
  limitRequests?: number;
  limitTokens?: number;
}

/** What agent/rewind did: files restored, files left as they are. */
export interface RewindResult {
  files: string[];
  conflicts: { uri: string; reason: string }[];
  notRestored: { uri: string; reason: string }[];
  rewound: string[];
  turnId?: string;
}
