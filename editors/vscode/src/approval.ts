// How an agent/requestApproval is put to the user (protocol section 6):
// the words, the buttons and which decision each means. Pure.

import type { ApprovalParams, Decision } from './protocol';
import { shellWords, visible, visibleLine } from './visible';

export interface Choice {
  title: string;
  decision?: Decision;
  /** With allowPersist: the offered host pattern to write to the config. */
  pattern?: string;
  /** Not a decision: opens the diff and asks again. */
  showDiff?: boolean;
}

export interface Prompt {
  message: string;
  detail: string;
  modal: boolean;
  choices: Choice[];
}

/**
 * The command to approve, one shell word per argument, quoted as agent-ls
 * quotes it: a carriage return, an escape sequence or a bidi override in
 * an argument shows as $'\r', $'\x1b', $'\u202e' and cannot make the
 * command read as another.
 */
export function commandLine(argv: string[] | string | undefined): string {
  return typeof argv === 'string' ? visibleLine(argv) : shellWords(argv);
}

/** A file or folder for one line, its hidden characters escaped. */
export function folderLabel(uri: string | undefined): string {
  if (!uri) return '';
  let path = uri.replace(/^file:\/\//, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: shown as it came
  }
  return visibleLine(path);
}

/** A command the server called dangerous (it destroys work or history) asks in a modal dialog. */
export function isDangerous(p: ApprovalParams): boolean {
  return p.kind === 'exec' && /\bdangerous\b/i.test(p.reason ?? '');
}

/** A network question (kind network): once, for the session, for good (the host or one of its offered wildcards), or deny; it never aborts the turn. */
function networkPrompt(p: ApprovalParams): Prompt {
  const offered = new Set(p.options ?? []);
  const host = p.host && p.host.includes(':') ? `[${p.host}]` : p.host;
  const where = visibleLine(`${host ?? ''}:${p.port ?? ''}`);
  const choices: Choice[] = [{ title: 'Allow Once', decision: 'allowOnce' }];
  if (offered.has('allowAlways')) choices.push({ title: 'Allow for This Session', decision: 'allowAlways' });
  if (offered.has('allowPersist')) {
    // One button per offered pattern (the exact host first, then its
    // wildcards), at most three: the answer names the one chosen.
    for (const pattern of (p.patterns ?? []).slice(0, 3)) {
      choices.push({ title: `Always Allow ${visibleLine(pattern)}`, decision: 'allowPersist', pattern });
    }
  }
  choices.push({ title: 'Deny', decision: 'rejectOnce' });
  const detail = p.reason ? visible(p.reason) : '';
  return { message: `Agent's command wants to connect to ${where}${detail ? ` (${detail})` : ''}`, detail, modal: false, choices };
}

export function approvalPrompt(p: ApprovalParams): Prompt {
  if (p.kind === 'network') return networkPrompt(p);
  const offered = new Set(p.options && p.options.length > 0 ? p.options : ['allowOnce', 'allowAlways', 'rejectOnce']);
  const choices: Choice[] = [];
  if (offered.has('allowOnce')) choices.push({ title: 'Allow Once', decision: 'allowOnce' });
  if (offered.has('allowAlways')) choices.push({ title: 'Allow Always', decision: 'allowAlways' });
  if (offered.has('rejectOnce')) choices.push({ title: 'Reject', decision: 'rejectOnce' });
  else if (offered.has('rejectAlways')) choices.push({ title: 'Reject', decision: 'rejectAlways' });
  choices.push({ title: 'Abort', decision: 'abort' });
  if (p.kind === 'patch' && p.diff) choices.push({ title: 'Show Diff', showDiff: true });

  let message: string;
  const detail: string[] = [];
  switch (p.kind) {
    case 'exec':
      message = `Agent wants to run: ${commandLine(p.command)}`;
      if (p.cwd) detail.push(`in ${folderLabel(p.cwd)}`);
      break;
    case 'patch': {
      const files = (p.files ?? []).map(folderLabel);
      message = `Agent wants to change ${files.length === 1 ? files[0] : `${files.length} files`}`;
      if (files.length > 1) detail.push(files.join('\n'));
      break;
    }
    default:
      message = `Agent wants to call ${p.server ? `${visibleLine(p.server)}: ` : ''}${visibleLine(p.tool ?? 'a tool')}`;
  }
  if (p.reason) detail.push(visible(p.reason));
  const modal = isDangerous(p);
  // A notification shows one line: the folder and reason go into it too.
  if (!modal && detail.length > 0) message += ` (${detail.join('; ')})`;
  return { message, detail: detail.join('\n'), modal, choices };
}
