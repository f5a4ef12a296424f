import { Script } from 'node:vm';
import { CouchError } from '../errors.js';
import { JsonObject, type JsonValue } from '../json/index.js';
import { validateReduceSource } from './reduce/builtins.js';
import { sourceCandidates } from '../sandbox/source-candidates.js';

/**
 * CouchDB 3's checks on a design document before it is saved (couch_mrview:validate): the shapes
 * of `views`, each view's `map`/`reduce`/`options`, the ddoc `options`. A `language` other than
 * javascript is accepted (such views cannot be queried), as CouchDB does.
 */
export function validateDesignDoc(body: JsonObject): void {
  checkDesign(body);
}

/** The document layer's check before a write (see documents/write-plan.ts): design documents only. */
export function checkDesignWrite(id: string, body: JsonObject, deleted: boolean): void {
  if (id.startsWith('_design/') && !deleted) checkDesign(body);
}

function checkDesign(body: JsonObject): void {
  const language = body.get('language');
  if (language !== undefined && typeof language !== 'string') invalid('`language` field must have string type');
  // Other languages save fine (CouchDB 3); their views answer 500 unknown_query_language.
  const javascript = language === undefined || language === 'javascript';
  const options = body.get('options');
  if (options !== undefined) checkOptions(options, 'options');
  // Its text is not compiled here: CouchDB saves a broken one and fails the writes it guards.
  const validate = body.get('validate_doc_update');
  if (validate !== undefined && typeof validate !== 'string')
    invalid('`validate_doc_update` field must have string type');
  const views = body.get('views');
  if (views === undefined) return;
  if (!(views instanceof JsonObject)) invalid('`views` field must have object type');
  for (const [name, view] of views.entries()) {
    // `views.lib` holds CommonJS modules for map functions to `require`, not a view.
    if (name === 'lib') {
      if (!(view instanceof JsonObject)) invalid('`views.lib` must be an object');
      continue;
    }
    if (!(view instanceof JsonObject)) invalid(`View \`${name}\` must be an object`);
    const map = view.get('map');
    if (map === undefined) invalid(`View \`${name}\` must contain map function`);
    // A Mango index's map is its definition object (CouchDB's mango_native_proc reads it).
    const queryIndex = language === 'query' && map instanceof JsonObject;
    if (typeof map !== 'string' && !queryIndex) invalid(`\`views.${name}.map\` field must have string type`);
    if (javascript && typeof map === 'string') checkCompiles(map, 'map', name);
    const reduce = view.get('reduce');
    if (reduce !== undefined) {
      if (typeof reduce !== 'string') invalid(`\`views.${name}.reduce\` field must have string type`);
      validateReduceSource(reduce);
      if (javascript && !reduce.startsWith('_')) checkCompiles(reduce, 'reduce', name);
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

/**
 * CouchDB 3 compiles view functions when a design document is saved. Only a syntax check here:
 * `Script` compiles without running anything, so no user code executes in the host.
 */
function checkCompiles(source: string, kind: 'map' | 'reduce', view: string): void {
  try {
    new Script(`(${source}\n)`);
  } catch (error) {
    // Without a trailing `;` or comment it may compile, as in CouchDB and in the sandbox.
    for (const text of sourceCandidates(source).slice(1)) {
      try {
        new Script(`(${text}\n)`);
        return;
      } catch {
        // the first error is the one to report
      }
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new CouchError(
      'compilation_error',
      `Compilation of the ${kind} function in the '${view}' view failed: ${message}`,
      400,
    );
  }
}
