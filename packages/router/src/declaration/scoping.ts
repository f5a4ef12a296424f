/**
 * Scoping (Rails' \`Mapper::Scoping\`): \`scope\`, \`namespace\`, \`constraints\`, \`defaults\` — blocks
 * whose routes share a path, a handler module, a name prefix or options.
 */
import { ArgumentError } from '../errors.js';
import { normalizePath } from '../pattern/normalize.js';
import { isPlainObject } from './mapping.js';
import { SCOPE_OPTIONS, URL_OPTIONS, type ScopeOptions } from './options.js';
import type { ScopeFrame } from './scope.js';
import type { Block } from './mapper-base.js';
import { HttpHelpers } from './http-helpers.js';

export abstract class Scoping extends HttpHelpers {
  /**
   * Scopes a block by path, handler module, name prefix and any other option:
   * `scope('admin', ...)`, `scope({ module: 'api', path: 'v1', as: 'v1' }, ...)`.
   */
  scope(path: string | string[], block: Block): this;
  scope(path: string | string[], options: ScopeOptions, block: Block): this;
  scope(options: ScopeOptions, block: Block): this;
  scope(a: string | string[] | ScopeOptions, b?: ScopeOptions | Block, c?: Block): this {
    let options: Record<string, unknown>;
    let block: Block | undefined;
    if (typeof a === 'string' || Array.isArray(a)) {
      options = { ...(typeof b === 'function' ? {} : (b ?? {})) };
      block = typeof b === 'function' ? b : c;
      options.path = (Array.isArray(a) ? a.flat() : [a]).join('/');
    } else {
      options = { ...a };
      block = typeof b === 'function' ? b : c;
    }
    this.applyScope(options, () => this.run(block));
    return this;
  }

  protected applyScope(input: Record<string, unknown>, block: () => void): void {
    const options = { ...input };
    const frame: ScopeFrame = {};
    if (options.constraints === undefined) options.constraints = {};

    if (this.current.level !== 'nested') {
      if ('path' in options && options.shallowPath === undefined) options.shallowPath = options.path;
      if ('as' in options && options.shallowPrefix === undefined) options.shallowPrefix = options.as;
    }

    if (isPlainObject(options.constraints)) {
      const urlDefaults: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(options.constraints)) {
        if (URL_OPTIONS.includes(k) && (typeof v === 'string' || typeof v === 'number')) urlDefaults[k] = v;
      }
      options.defaults = { ...urlDefaults, ...((options.defaults as Record<string, unknown>) ?? {}) };
    } else {
      options.constraints = {};
    }

    if ('only' in options || 'except' in options) {
      frame.actionOptions = { only: options.only, except: options.except };
      delete options.only;
      delete options.except;
    }
    if ('anchor' in options) throw new ArgumentError('anchor is ignored unless passed to `match`');
    if ('middleware' in options) {
      // Added to the enclosing scopes' middleware (never a default or a requirement).
      frame.middleware = [...(this.current.get('middleware') ?? []), ...[options.middleware].flat()];
      delete options.middleware;
    }

    const s = this.current;
    for (const key of SCOPE_OPTIONS) {
      if (!(key in options)) continue;
      const value = options[key];
      delete options[key];
      switch (key) {
        case 'path':
        case 'shallowPath':
          frame[key] = normalizePath(`${s.get(key) ?? ''}/${value ?? ''}`);
          break;
        case 'as':
        case 'shallowPrefix': {
          const parent = s.get(key);
          frame[key] = parent ? `${parent}_${value}` : (value as string | undefined);
          break;
        }
        case 'module': {
          const parent = s.get('module');
          frame.module = parent ? `${parent}/${value}` : (value as string | undefined);
          break;
        }
        case 'pathNames':
        case 'constraints':
        case 'defaults':
          (frame as Record<string, unknown>)[key] = {
            ...(s.get(key) ?? {}),
            ...((value as Record<string, unknown>) ?? {}),
          };
          break;
        case 'shallow':
          frame.shallow = Boolean(value);
          break;
        default:
          (frame as Record<string, unknown>)[key] = value;
      }
    }
    // Whatever is left reaches every route of the block as an option (a default or a requirement).
    frame.options = { ...(s.get('options') ?? {}), ...options };
    this.within(frame, undefined, block);
  }

  /** Groups routes under a path, a handler module and a name prefix; inside a resource it nests. */
  namespace(name: string, block: Block): this;
  namespace(name: string, options: ScopeOptions, block: Block): this;
  namespace(name: string, b: ScopeOptions | Block, c?: Block): this {
    const options: Record<string, unknown> = { ...(typeof b === 'function' ? {} : b) };
    const block = typeof b === 'function' ? b : c;
    const body = () => {
      const path = String(name);
      const asName = 'as' in options ? options.as : path;
      const scopeOptions: Record<string, unknown> = {
        module: path,
        as: asName,
        shallowPath: 'path' in options ? options.path : path,
        shallowPrefix: asName,
      };
      const pathOption = 'path' in options ? String(options.path) : path;
      delete options.path;
      this.pathScope(pathOption, () => this.applyScope({ ...scopeOptions, ...options }, () => this.run(block)));
    };
    if (this.current.isResourceScope()) this.nestedScope(body);
    else body();
    return this;
  }

  /** Adds segment constraints to every route of the block. */
  constraints(constraints: Record<string, RegExp | string>, block: Block): this {
    this.applyScope({ constraints }, () => this.run(block));
    return this;
  }

  /** Adds defaults to every route of the block. */
  defaults(defaults: Record<string, unknown>, block: Block): this {
    this.within({ defaults: { ...(this.current.get('defaults') ?? {}), ...defaults } }, undefined, () =>
      this.run(block),
    );
    return this;
  }

  /** Clears the name prefix and path for the block (the seed's exclusive scope level). */
  withExclusiveScope(block: Block): this {
    this.within({ as: undefined, path: undefined }, 'exclusive', () => this.run(block));
    return this;
  }
}
