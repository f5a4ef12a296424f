/**
 * The last count of changes after a sequence, kept so the next count after a later sequence,
 * of the same unchanged database, subtracts the changes between the two instead of counting to
 * the end again. A reader walking a feed page by page (a replication) asks `pending` after each
 * page: counted from scratch, the pages of a whole database cost the square of its size.
 */
export class ChangesCountMemo {
  private last: { since: number; count: number; version: string } | undefined;

  /**
   * The count kept at `version` (the database's state: its sequence, purge sequence and
   * totals) from a sequence at or before `since`, or undefined when there is none to start from.
   */
  from(since: number, version: string): { since: number; count: number } | undefined {
    const last = this.last;
    if (last === undefined || last.version !== version || last.since > since) return undefined;
    return last;
  }

  /** The sequence the kept count starts after (for an engine that must ask its state and the difference at once). */
  get since(): number | undefined {
    return this.last?.since;
  }

  remember(since: number, count: number, version: string): void {
    this.last = { since, count, version };
  }
}
