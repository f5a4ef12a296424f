/**
 * Attachment writes under way in this process, for an engine whose files no other process
 * writes (SQLite): what the contract's `attachmentWrite`, `attachmentSweepMark` and
 * `sweepAttachments` need to know. A sweep frees nothing while a write is under way, nor when
 * one began while it looked (its bytes may be about to be referenced).
 */
import type { AttachmentSweepMark } from './contract.js';

export class LocalAttachmentWrites {
  private underWay = 0;
  private begun = 0;

  async run<T>(write: () => Promise<T>): Promise<T> {
    this.begun++;
    this.underWay++;
    try {
      return await write();
    } finally {
      this.underWay--;
    }
  }

  /** Undefined while a write is under way. */
  mark(): AttachmentSweepMark | undefined {
    return this.underWay > 0 ? undefined : this.begun;
  }

  /** True when no write began since `mark` and none is under way. */
  quietSince(mark: AttachmentSweepMark): boolean {
    return this.underWay === 0 && this.begun === mark;
  }
}
