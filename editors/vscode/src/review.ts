// A change under review (protocol section 5.5) as the extension keeps it:
// the files of an agent/requestReview, each with its hunks in the order of
// the request's diff, the user's decision on each, and the answer they
// make. Pure.

import { parseDiff, type Hunk } from './diff';
import type { FileChangeEntry, ReviewAnswer, ReviewParams } from './protocol';

export interface ReviewHunk extends Hunk {
  /** The @@ line, as the diff has it. */
  header: string;
  /** undefined until the user decides. */
  accept?: boolean;
}

export interface ReviewFile extends FileChangeEntry {
  hunks: ReviewHunk[];
  /** This file's section of the diff alone (for the diff editor). */
  diff: string;
}

export interface Review {
  key: string;
  params: ReviewParams;
  files: ReviewFile[];
  comment: string;
}

/**
 * The review of params: the diff's sections go, in order, to the files
 * that have hunks (a file without hunks has no section).
 */
export function newReview(params: ReviewParams): Review {
  const sections = splitSections(params.diff);
  let next = 0;
  const files: ReviewFile[] = params.changes.map((c) => {
    const { hunks: count, ...entry } = c;
    if (!count) return { ...entry, hunks: [], diff: '' };
    const text = sections[next++] ?? '';
    const fd = parseDiff(text)[0];
    const headers = text.split('\n').filter((l) => l.startsWith('@@'));
    const hunks = (fd?.hunks ?? []).map((h, i) => ({ ...h, header: headers[i] ?? '' }));
    return { ...entry, hunks, diff: text };
  });
  return { key: `${params.turnId}|${params.callId}`, params, files, comment: '' };
}

/** The diff's text split into its files' sections (each from its --- line). */
export function splitSections(diff: string): string[] {
  const lines = diff.split('\n');
  const out: string[] = [];
  let cur: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('--- ') && i + 1 < lines.length && lines[i + 1].startsWith('+++ ')) {
      if (cur) out.push(cur.join('\n') + '\n');
      cur = [];
    }
    cur?.push(l);
  }
  if (cur) out.push(cur.join('\n').replace(/\n*$/, '\n'));
  return out;
}

export function setHunk(r: Review, file: number, hunk: number, accept: boolean): void {
  const h = r.files[file]?.hunks[hunk];
  if (h) h.accept = accept;
}

export function setAll(r: Review, accept: boolean): void {
  for (const f of r.files) for (const h of f.hunks) h.accept = accept;
}

export function counts(r: Review): { accepted: number; rejected: number; open: number } {
  let accepted = 0;
  let rejected = 0;
  let open = 0;
  for (const f of r.files)
    for (const h of f.hunks) {
      if (h.accept === true) accepted++;
      else if (h.accept === false) rejected++;
      else open++;
    }
  return { accepted, rejected, open };
}

/**
 * The answer to the request: hunks left undecided are rejected (only
 * what the user accepted is applied). Every hunk is named, with the uri
 * as the request had it; files without hunks go with the majority of
 * the decision: accept when nothing was rejected.
 */
export function answer(r: Review): ReviewAnswer {
  // Hunks are numbered per uri, on through the diff should a file come twice.
  const seen = new Map<string, number>();
  const hunks = r.files.flatMap((f) => {
    const first = seen.get(f.uri) ?? 0;
    seen.set(f.uri, first + f.hunks.length);
    return f.hunks.map((h, i) => ({ uri: f.uri, index: first + i, accept: h.accept === true }));
  });
  const allAccepted = hunks.every((h) => h.accept);
  const out: ReviewAnswer = { decision: allAccepted ? 'accept' : 'reject' };
  if (!allAccepted && hunks.some((h) => h.accept)) out.hunks = hunks.filter((h) => h.accept);
  const comment = r.comment.trim();
  if (comment) out.comment = comment;
  return out;
}

/** The first line of hunk h that the change touches, 0-based, in the new text. */
export function firstChangedLine(h: Hunk): number {
  let line = h.newStart - 1;
  for (const l of h.lines) {
    if (l.startsWith('+') || l.startsWith('-')) return Math.max(0, line);
    if (l.startsWith(' ')) line++;
  }
  return Math.max(0, h.newStart - 1);
}
