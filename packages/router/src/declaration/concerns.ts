/** Concerns (Rails' \`Mapper::Concerns\`): named groups of routes declared once, applied in several places. */
import { ArgumentError } from '../errors.js';
import type { ConcernBlock, Names } from './mapper-base.js';
import { Scoping } from './scoping.js';

export abstract class Concerns extends Scoping {
  private readonly concernBlocks = new Map<string, ConcernBlock>();

  /** Declares a reusable group of routes; the block receives the options given to `concerns`. */
  concern(name: string, block: ConcernBlock): this {
    this.concernBlocks.set(String(name), block);
    return this;
  }

  /** Applies named concerns here. */
  concerns(names: Names, options: Record<string, unknown> = {}): this {
    for (const name of Array.isArray(names) ? names.flat() : [names]) {
      const block = this.concernBlocks.get(String(name));
      if (!block) throw new ArgumentError(`No concern named ${name} was found!`);
      block(this.self, { ...options });
    }
    return this;
  }
}
