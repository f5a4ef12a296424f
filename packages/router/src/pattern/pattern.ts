/**
 * A route path as one object: its text and its one parse (ast.ts), and everything read from
 * that parse — segment keys, required keys, the params with their kinds — made on first use.
 * The route, the matcher, the generator and the formatters all read a route's pattern.
 *
 * The one exception is `names`, the param names the declaration checks (`:handler`, which
 * constraints apply): a scan of the text, not the parse. Parsing every path when it is declared
 * would take most of the 40 ms budget for declaring and compiling a 10,000-route set on a cold
 * start (docs/benchmarks.md), for routes most of which are never looked at; the parse waits
 * until a route is used.
 */
import { isWordChar, parsePath, requiredKeys, segmentKeys, visitParams, type PathNode } from './ast.js';

/** A `:name` or `*name` segment of a path. */
export interface PathParam {
  name: string;
  /** False when the segment sits inside `( )`. */
  required: boolean;
  glob: boolean;
}

const NO_NAMES: readonly string[] = Object.freeze([]);

export class PathPattern {
  private parsed: PathNode[] | null = null;
  private keys: string[] | null = null;
  private required: string[] | null = null;
  private paramList: PathParam[] | null = null;

  constructor(readonly source: string) {}

  get ast(): PathNode[] {
    return (this.parsed ??= parsePath(this.source));
  }

  /** Every param and glob name in path order, each once (Rails' `segment_keys`). */
  get segmentKeys(): string[] {
    return (this.keys ??= segmentKeys(this.ast));
  }

  /** Params outside optional groups, in path order (Rails' `required_parts`). */
  get requiredKeys(): string[] {
    return (this.required ??= requiredKeys(this.ast));
  }

  /** The params in path order, each once, with whether it is required and a glob. */
  get params(): PathParam[] {
    if (this.paramList !== null) return this.paramList;
    const params: PathParam[] = [];
    visitParams(this.ast, (node, required) => {
      if (!params.some((p) => p.name === node.name))
        params.push({ name: node.name, required, glob: node.type === 'glob' });
    });
    return (this.paramList = params);
  }

  /** The param and glob names of a path as `/[:*](\w+)/g` finds them, without parsing it (see the module comment). */
  static names(path: string): readonly string[] {
    let names = NO_NAMES as string[];
    let colon = path.indexOf(':');
    let star = path.indexOf('*');
    while (colon !== -1 || star !== -1) {
      const i = colon === -1 || (star !== -1 && star < colon) ? star : colon;
      let end = i + 1;
      while (end < path.length && isWordChar(path.charCodeAt(end))) end++;
      if (end > i + 1) {
        if (names === NO_NAMES) names = [];
        names.push(path.slice(i + 1, end));
      }
      const from = Math.max(end, i + 1);
      if (colon !== -1 && colon < from) colon = path.indexOf(':', from);
      if (star !== -1 && star < from) star = path.indexOf('*', from);
    }
    return names;
  }
}
