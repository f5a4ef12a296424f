import { CouchError } from '../errors.js';
import { JsonObject, type JsonValue } from '../json/index.js';

/** The builtin reduce functions a view may name instead of JavaScript source. */
export const BUILTIN_REDUCERS = new Set(['_sum', '_count', '_stats', '_approx_count_distinct']);

/**
 * CouchDB 3's checks on a design document before it is saved (couch_mrview:validate): the shapes
 * of `views`, each view's `map`/`reduce`/`options`, the ddoc `options`. A `language` other than
 * javascript is accepted (such views cannot be queried), as CouchDB does.
 */
export function validateDesignDoc(body: JsonObject): void {
  const language = body.get('language');
  if (language !== undefined && typeof language !== 'string') invalid('`language` field must have string type');
  const options = body.get('options');
  if (options !== undefined) checkOptions(options, 'options');
  const views = body.get('views');
  if (views === undefined) return;
  if (!(views instanceof JsonObject)) invalid('`views` field must have object type');
  for (const [name, view] of views.entries()) {
    if (!(view instanceof JsonObject)) invalid(`View \`${name}\` must be an object`);
    const map = view.get('map');
    if (map === undefined) invalid(`View \`${name}\` must contain map function`);
    if (typeof map !== 'string') invalid(`\`views.${name}.map\` field must have string type`);
    const reduce = view.get('reduce');
    if (reduce !== undefined) {
      if (typeof reduce !== 'string') invalid(`\`views.${name}.reduce\` field must have string type`);
      if (reduce.startsWith('_') && !BUILTIN_REDUCERS.has(reduce.trim())) {
        invalid(`\`${reduce}\` is not a supported reduce function.`);
      }
    }
    const viewOptions = view.get('options');
    if (viewOptions !== undefined) checkOptions(viewOptions, `views.${name}.options`);
  }
}

function checkOptions(options: JsonValue, where: string): void {
  if (!(options instanceof JsonObject)) invalid(`\`${where}\` field must have object type`);
  for (const flag of ['include_design', 'local_seq']) {
    const value = options.get(flag);
    if (value !== undefined && typeof value !== 'boolean') invalid(`\`${where}.${flag}\` field must have boolean type`);
  }
}

function invalid(reason: string): never {
  throw new CouchError('invalid_design_doc', reason);
}
