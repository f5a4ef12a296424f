/**
 * `/_uuids`' generator, CouchDB's couch_uuids with its `[uuids] algorithm`: `sequential` (the
 * default: a random 26-hex prefix and a 6-hex counter that grows by a random step, a new prefix
 * when it nears its end), `random` (128 random bits), `utc_random` (14 hex of microseconds since
 * the epoch, then 18 random hex) and `utc_id` (the same time, then `[uuids] utc_id_suffix`).
 * Time-based ids never go backwards: a clock that did moves on from the last one given.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { ConfigSections } from './config.js';

export type UuidAlgorithm = 'sequential' | 'random' | 'utc_random' | 'utc_id';

const ALGORITHMS = new Set<string>(['sequential', 'random', 'utc_random', 'utc_id']);
/** CouchDB rolls the prefix once the counter passes this. */
const SEQUENCE_ROLL = 0xfff000;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export class UuidGenerator {
  private prefix = hex(13);
  private sequence = step();
  private lastMicros = 0;

  /** The algorithm and suffix the stored config names (CouchDB's default for anything else). */
  static settingsOf(config: ConfigSections): { algorithm: UuidAlgorithm; suffix: string } {
    const named = config.uuids?.algorithm ?? 'sequential';
    const algorithm = (ALGORITHMS.has(named) ? named : 'sequential') as UuidAlgorithm;
    return { algorithm, suffix: config.uuids?.utc_id_suffix ?? '' };
  }

  next(algorithm: UuidAlgorithm, suffix = ''): string {
    switch (algorithm) {
      case 'random':
        return hex(16);
      case 'utc_random':
        return this.utcPrefix() + hex(9);
      case 'utc_id':
        return this.utcPrefix() + suffix;
      case 'sequential': {
        const id = this.prefix + this.sequence.toString(16).padStart(6, '0');
        if (this.sequence >= SEQUENCE_ROLL) {
          this.prefix = hex(13);
          this.sequence = step();
        } else {
          this.sequence += step();
        }
        return id;
      }
    }
  }

  private utcPrefix(): string {
    const micros = Math.max(Math.floor((performance.timeOrigin + performance.now()) * 1000), this.lastMicros + 1);
    this.lastMicros = micros;
    return micros.toString(16).padStart(14, '0');
  }
}

/** The counter's random step, 1..0xffd as couch_rand:uniform(16#ffd). */
function step(): number {
  return randomInt(1, 0xffe);
}
