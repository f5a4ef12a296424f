/**
 * Replication checkpoints: the `_local/<replication id>` document written on both source and
 * target, in the shape CouchDB's couch_replicator writes and reads (`session_id`,
 * `source_last_seq`, `replication_id_version`, `history` newest first). Where a job resumes is
 * decided as CouchDB's compare_replication_logs does: the same session on both sides resumes
 * from `source_last_seq`; otherwise the newest session both histories share gives its
 * `recorded_seq`; none shared starts from the beginning. PouchDB's checkpointer writes the same
 * comparison with `last_seq` in place of `source_last_seq` and `recorded_seq`: read as well, and
 * `last_seq` is written beside `source_last_seq`, so a PouchDB replication of the same pair
 * resumes from Divan's checkpoint and Divan's from PouchDB's.
 */
import type { Seq } from './endpoint.js';
import { REPLICATION_ID_VERSION } from './replication-id-version.js';

/** How many sessions a checkpoint keeps (CouchDB's 50). */
const MAX_HISTORY = 50;

export interface SessionStats {
  missing_checked: number;
  missing_found: number;
  docs_read: number;
  docs_written: number;
  doc_write_failures: number;
}

export interface HistoryEntry extends SessionStats {
  session_id: string;
  start_time: string;
  end_time: string;
  start_last_seq: Seq;
  end_last_seq: Seq;
  recorded_seq: Seq;
}

export interface CheckpointBody {
  session_id: string;
  source_last_seq: Seq;
  /** PouchDB's name of `source_last_seq` (it reads no other). */
  last_seq: Seq;
  replication_id_version: number;
  history: HistoryEntry[];
}

export function checkpointId(replicationId: string): string {
  return `_local/${replicationId}`;
}

/** Where to start, and the history the next checkpoint continues. */
export function resumePoint(
  source: Record<string, unknown> | undefined,
  target: Record<string, unknown> | undefined,
): { since: Seq; history: HistoryEntry[] } {
  if (source === undefined || target === undefined) return { since: 0, history: [] };
  if (source.session_id !== undefined && source.session_id === target.session_id) {
    return { since: source.source_last_seq ?? source.last_seq ?? 0, history: historyOf(source) };
  }
  return compareHistories(historyOf(source), historyOf(target));
}

function compareHistories(source: HistoryEntry[], target: HistoryEntry[]): { since: Seq; history: HistoryEntry[] } {
  let s = source;
  let t = target;
  while (s.length > 0 && t.length > 0) {
    const [sHead, ...sRest] = s as [HistoryEntry, ...HistoryEntry[]];
    const [tHead, ...tRest] = t as [HistoryEntry, ...HistoryEntry[]];
    if (hasSession(sHead.session_id, t)) return { since: recordedSeq(sHead), history: sRest };
    if (hasSession(tHead.session_id, sRest)) return { since: recordedSeq(tHead), history: tRest };
    s = sRest;
    t = tRest;
  }
  return { since: 0, history: [] };
}

/** A history entry's sequence: CouchDB's `recorded_seq`, PouchDB's `last_seq`. */
function recordedSeq(entry: HistoryEntry): Seq {
  return entry.recorded_seq ?? (entry as { last_seq?: Seq }).last_seq ?? 0;
}

function hasSession(sessionId: string, history: readonly HistoryEntry[]): boolean {
  return sessionId !== undefined && history.some((entry) => entry.session_id === sessionId);
}

function historyOf(doc: Record<string, unknown>): HistoryEntry[] {
  return Array.isArray(doc.history) ? (doc.history as HistoryEntry[]) : [];
}

/** The checkpoint after `entry`: this session first, earlier sessions after it. */
export function checkpointBody(entry: HistoryEntry, earlier: readonly HistoryEntry[]): CheckpointBody {
  const history = [entry, ...earlier.filter((old) => old.session_id !== entry.session_id)].slice(0, MAX_HISTORY);
  return {
    session_id: entry.session_id,
    source_last_seq: entry.recorded_seq,
    last_seq: entry.recorded_seq,
    replication_id_version: REPLICATION_ID_VERSION,
    history,
  };
}

/** CouchDB's dates in checkpoints (httpd_util:rfc1123_date). */
export function rfc1123(date = new Date()): string {
  return date.toUTCString();
}
