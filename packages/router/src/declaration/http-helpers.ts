/** The verb methods (Rails' `Mapper::HttpHelpers`): \`get('preview')\` is \`match('preview', { via: 'get' })\`. */
import type { MatchOptions } from './options.js';
import { isPlainObject } from './mapping.js';
import { MapperBase, type PathArg } from './mapper-base.js';

export abstract class HttpHelpers extends MapperBase {
  get(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('get', path, options);
  }

  post(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('post', path, options);
  }

  put(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('put', path, options);
  }

  patch(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('patch', path, options);
  }

  delete(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('delete', path, options);
  }

  protected mapMethod(verb: string, path: PathArg, options?: MatchOptions): this {
    if (isPlainObject(path) && options === undefined) return this.match({ ...path, via: verb });
    return this.match(path, { ...(options ?? {}), via: verb });
  }
}
