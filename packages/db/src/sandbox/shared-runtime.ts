/**
 * The part of CouchDB's sandbox environment (share/server/util.js) that the view runtime and the
 * design-function runtime both evaluate: error descriptions, `log`, `sum`, `isArray` and CommonJS
 * `require` from a root object. A fragment of plain JavaScript spliced into each runtime's
 * program; it uses the names each declares before it: `global`, `indirectEval`, `stringify`,
 * `objectToString`, `hasOwn`, `logs` and `moduleCache`.
 */
export const SHARED_RUNTIME = String.raw`
  function describe(err) {
    if (err instanceof Error) return err.stack ? String(err.stack) : String(err);
    try { return stringify(err); } catch (e) { return String(err); }
  }
  function log(message) {
    if (typeof message !== 'string') {
      try { message = stringify(message); } catch (e) { message = String(message); }
    }
    logs.push(String(message));
  }
  function sum(values) {
    var rv = 0;
    for (var i in values) rv += values[i];
    return rv;
  }
  function isArray(obj) { return objectToString.call(obj) === '[object Array]'; }

  // util.js resolveModule: a path is walked from the root object for its first plain segment,
  // '.' and '..' move relative to the requiring module.
  function resolveModule(names, mod, root) {
    mod = mod || {};
    if (names.length === 0) {
      if (typeof mod.current !== 'string') {
        throw ['error', 'invalid_require_path', 'Must require a JavaScript string, not: ' + (typeof mod.current)];
      }
      return { current: mod.current, parent: mod.parent, id: mod.id, exports: {} };
    }
    var n = names.shift();
    if (n === '..') {
      if (!(mod.parent && mod.parent.parent)) {
        throw ['error', 'invalid_require_path', 'Object has no parent ' + stringify(mod.current)];
      }
      return resolveModule(names, {
        id: mod.id.slice(0, mod.id.lastIndexOf('/')),
        parent: mod.parent.parent,
        current: mod.parent.current
      });
    } else if (n === '.') {
      if (!mod.parent) {
        throw ['error', 'invalid_require_path', 'Object has no parent ' + stringify(mod.current)];
      }
      return resolveModule(names, { parent: mod.parent, current: mod.current, id: mod.id });
    } else if (root) {
      mod = { current: root };
    }
    if (mod.current === null || typeof mod.current !== 'object' || mod.current[n] === undefined) {
      throw ['error', 'invalid_require_path', 'Object has no property "' + n + '". ' + stringify(mod.current)];
    }
    return resolveModule(names, {
      current: mod.current[n],
      parent: mod,
      id: mod.id ? mod.id + '/' + n : n
    });
  }

  // Loads (once) the module a path names, relative to the requiring module, from root;
  // requireFrom(name, module) is each runtime's own (it picks the root).
  function requireModule(name, module, root) {
    var newModule = resolveModule(String(name).split('/'), (module || {}).parent, root);
    if (!hasOwn.call(moduleCache, newModule.id)) {
      // An empty exports object first: stops circular requires from recursing forever.
      moduleCache[newModule.id] = {};
      try {
        var fn = indirectEval('(function (module, exports, require) { ' + newModule.current + '\n })');
        fn.call(global, newModule, newModule.exports, function (name) { return requireFrom(name, newModule); });
      } catch (e) {
        throw ['error', 'compilation_error', 'Module require(\'' + name + '\') raised error ' + describe(e)];
      }
      moduleCache[newModule.id] = newModule.exports;
    }
    return moduleCache[newModule.id];
  }
`;
