/**
 * What a match ends on: a route (in one of its path shapes) and how to build its params.
 * Most leaves get a params builder compiled for their exact keys on first use, so a match
 * makes one object of a fixed shape instead of filling an empty one key by key.
 */
import { decodeParam } from '../pattern/normalize.js';
import type { Route } from '../route.js';

/** Builds the params of a match from the path and the start/end index of each value. */
export type ParamsBuilder = (path: string, pos: Int32Array) => Record<string, unknown>;

/** A route matched by its own regexp; its capture names are read when it first matches. */
export interface RegexpLeaf {
  readonly route: Route;
  readonly key: number;
}

export class Leaf {
  /** Made on first match (most routes of a large set are never requested). */
  private plain: ParamsBuilder | null = null;
  private decoding: ParamsBuilder | null = null;

  constructor(
    readonly route: Route,
    /** Declaration index and shape: the lowest key wins. */
    readonly key: number,
    /** Param name of each captured value, in capture order (shared between leaves). */
    readonly names: readonly string[],
  ) {}

  /** Matches so far, up to the count from which a builder is compiled. */
  private uses = 0;

  /** The params of a match; `decode` is false when no value can hold a `%` escape. */
  params(path: string, pos: Int32Array, decode: boolean): Record<string, unknown> {
    // A route matched once or twice (a cold start, a one-off) is not worth compiling for.
    if (this.uses < PARAMS_BUILDER_AFTER_MATCHES) {
      this.uses++;
      return genericParams(this.names, defaultsOf(this.route), decode, path, pos);
    }
    if (decode) return (this.decoding ??= paramsBuilder(this.names, defaultsOf(this.route), true))(path, pos);
    return (this.plain ??= paramsBuilder(this.names, defaultsOf(this.route), false))(path, pos);
  }
}

export function defaultsOf(route: Route): Record<string, unknown> | null {
  const defaults = route.spec.defaults;
  for (const _ in defaults) return defaults;
  return null;
}

/** Matches of a leaf after which its params builder is compiled (not the tree's codegen threshold). */
const PARAMS_BUILDER_AFTER_MATCHES = 2;

/** Builders for leaves without defaults, shared by every leaf with the same names. */
const shared = new Map<string, ParamsBuilder>();

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function paramsBuilder(
  names: readonly string[],
  defaults: Record<string, unknown> | null,
  decode: boolean,
): ParamsBuilder {
  if (defaults === null) {
    const id = (decode ? '%' : '') + names.join('/');
    let build = shared.get(id);
    if (build === undefined) shared.set(id, (build = compileBuilder(names, null, decode)));
    return build;
  }
  return compileBuilder(names, defaults, decode);
}

/**
 * The object literal of a match's params, as source: `{ post_id: path.slice(p[0], p[1]), ... }`
 * (each value wrapped in `dec()` when it may need decoding), so the object has a fixed shape:
 * defaults first (read from `D`), then the values (a repeated key keeps its first place and its
 * last value, as assignments would). Null when a name is one an object literal would treat
 * specially (`__proto__`) or cannot spell: such params take the generic path.
 * Shared by the builders below and the compiled walk (codegen.ts).
 */
export function paramsLiteral(
  names: readonly string[],
  defaults: Record<string, unknown> | null,
  decode: boolean,
  D: string,
  at: (k: number) => string,
): string | null {
  const keys = defaults === null ? [] : Object.keys(defaults);
  if (![...keys, ...names].every((k) => IDENTIFIER.test(k) && k !== '__proto__')) return null;
  const fields = keys.map((k) => `${k}: ${D}.${k}`);
  names.forEach((name, i) => {
    const value = `path.slice(${at(2 * i)}, ${at(2 * i + 1)})`;
    fields.push(`${name}: ${decode ? `dec(${value})` : value}`);
  });
  return `{ ${fields.join(', ')} }`;
}

/** `(path, p) => ({ post_id: path.slice(p[0], p[1]), id: path.slice(p[2], p[3]) })`, or the generic path. */
function compileBuilder(
  names: readonly string[],
  defaults: Record<string, unknown> | null,
  decode: boolean,
): ParamsBuilder {
  const literal = paramsLiteral(names, defaults, decode, 'D', (k) => `p[${k}]`);
  if (literal !== null) {
    try {
      return new Function('dec', 'D', `"use strict"; return (path, p) => (${literal});`)(decodeParam, defaults);
    } catch {
      // Code generation disallowed (--disallow-code-generation-from-strings): fall through.
    }
  }
  return (path, p) => genericParams(names, defaults, decode, path, p);
}

/** Defaults first, then each value under its name (a repeated name keeps the last value). */
function genericParams(
  names: readonly string[],
  defaults: Record<string, unknown> | null,
  decode: boolean,
  path: string,
  p: Int32Array,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (defaults !== null) for (const key in defaults) params[key] = defaults[key];
  for (let i = 0; i < names.length; i++) {
    const value = path.slice(p[2 * i]!, p[2 * i + 1]!);
    params[names[i]!] = decode ? decodeParam(value) : value;
  }
  return params;
}

/** The params of a route matched by its own regexp: defaults, then every value that took part. */
export function paramsFromValues(
  route: Route,
  names: readonly string[],
  values: ReadonlyArray<string | undefined>,
): Record<string, unknown> {
  const defaults = route.spec.defaults;
  const params: Record<string, unknown> = {};
  for (const key in defaults) params[key] = defaults[key];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = values[i];
    if (name !== '' && value !== undefined) params[name] = decodeParam(value);
  }
  return params;
}
