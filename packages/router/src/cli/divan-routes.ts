/**
 * `divan-routes FILE [--grep TEXT] [-c HANDLER] [--expanded] [--json] [--types OUT.d.ts]`: prints the route table of the
 * route set that FILE exports by default (`export default draw(...)`), like `rails routes`.
 *
 * FILE may be `.js`/`.mjs` or `.ts`/`.mts`. TypeScript is loaded by Node itself when it can
 * (type stripping), else through tsx (an optional peer dependency: `npm i -D tsx`).
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RouteSetLike } from '../types.js';
import { helperDeclarations } from '../format/helper-types.js';
import { filterRoutes, formatRoutes } from '../format/table.js';

export const USAGE = `Usage: divan-routes FILE [--grep TEXT] [-c HANDLER] [--expanded] [--json] [--types OUT.d.ts]

Prints the routes of the route set that FILE (.js, .mjs, .ts, .mts) exports by default,
like \`rails routes\`.

Options:
  -g, --grep TEXT     only routes whose name, verb, path or handler#action match TEXT
                      (a regular expression, case-insensitive)
  -c, --handler TEXT  only routes whose handler matches TEXT (a regular expression; a
                      Rails controller name such as Admin::UsersController works too)
  -E, --expanded      print one block per route instead of the table
      --json          print the routes as JSON instead of a table
      --types OUT     write the TypeScript declarations of routes.helpers to OUT (.d.ts)
  -h, --help          show this help
`;

/** Where the CLI writes; the defaults are the process streams. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

const defaultIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
};

interface Args {
  file: string;
  grep?: string;
  handler?: string;
  expanded: boolean;
  json: boolean;
  types?: string;
}

class UsageError extends Error {}

/** A failure with a message for the user (no stack trace). */
class CliError extends Error {}

function parseArgs(argv: readonly string[]): Args | 'help' {
  let file: string | undefined;
  let grep: string | undefined;
  let types: string | undefined;
  let handler: string | undefined;
  let json = false;
  let expanded = false;
  let onlyFiles = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!; // i < argv.length
    const value = (flag: string): string => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    if (onlyFiles || !arg.startsWith('-') || arg === '-') {
      if (file !== undefined) throw new UsageError(`unexpected argument: ${arg}`);
      file = arg;
    } else if (arg === '--') {
      onlyFiles = true;
    } else if (arg === '-h' || arg === '--help') {
      return 'help';
    } else if (arg === '--json') {
      json = true;
    } else if (arg === '-E' || arg === '--expanded') {
      expanded = true;
    } else if (arg === '-c' || arg === '--handler' || arg === '--controller') {
      handler = value(arg);
    } else if (arg.startsWith('--handler=') || arg.startsWith('--controller=')) {
      handler = arg.slice(arg.indexOf('=') + 1);
    } else if (arg === '-g' || arg === '--grep') {
      grep = value(arg);
    } else if (arg.startsWith('--grep=')) {
      grep = arg.slice('--grep='.length);
    } else if (arg === '--types') {
      types = value(arg);
    } else if (arg.startsWith('--types=')) {
      types = arg.slice('--types='.length);
      if (types === '') throw new UsageError('--types needs a value');
    } else {
      throw new UsageError(`unknown option: ${arg}`);
    }
  }
  if (file === undefined) throw new UsageError('missing FILE');
  return { file, grep, handler, expanded, json, types };
}

/** Runs the CLI; resolves to the exit code (0 ok, 1 failure, 2 usage error). */
export async function main(argv: readonly string[], io: CliIO = defaultIO): Promise<number> {
  let args: Args | 'help';
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`divan-routes: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    io.stdout(USAGE);
    return 0;
  }

  try {
    const routes = await loadRouteSet(resolve(io.cwd, args.file), args.file);
    if (args.types !== undefined) {
      const out = resolve(io.cwd, args.types);
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, helperDeclarations(routes));
      const count = new Set(routes.list().flatMap((r) => (r.name ? [r.name] : []))).size;
      io.stdout(`Wrote route helper types (${count} named route${count === 1 ? '' : 's'}) to ${args.types}\n`);
      if (!args.json && args.grep === undefined && args.handler === undefined && !args.expanded) return 0;
    }
    if (args.json) {
      const shown = filterRoutes(routes.list(), args);
      io.stdout(`${JSON.stringify(shown, jsonReplacer, 2)}\n`);
    } else {
      const { grep, handler, expanded } = args;
      io.stdout(`${formatRoutes(routes, { grep, handler, expanded })}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr(`divan-routes: ${error.message}\n`);
    } else {
      io.stderr(`divan-routes: ${args.file}: ${describeError(error)}\n`);
    }
    return 1;
  }
}

/** Imports FILE and returns its default export, checked to be a route set. */
async function loadRouteSet(path: string, shown: string): Promise<RouteSetLike> {
  if (!existsSync(path) || !statSync(path).isFile()) throw new CliError(`cannot find ${shown} (looked at ${path})`);
  const mod = await importFile(path, shown);
  let routes = mod.default;
  // A CommonJS module compiled from `export default` may arrive wrapped once more.
  if (!isRouteSet(routes) && isRouteSet((routes as { default?: unknown } | null)?.default)) {
    routes = (routes as { default?: unknown }).default;
  }
  if (!isRouteSet(routes)) {
    const what = routes === undefined ? 'has no default export' : 'has a default export without a list() method';
    throw new CliError(`${shown} ${what}; it must export a route set: export default draw((r) => { ... })`);
  }
  return routes;
}

function isRouteSet(value: unknown): value is RouteSetLike {
  return typeof value === 'object' && value !== null && typeof (value as { list?: unknown }).list === 'function';
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** Errors of a plain `import()` of a TypeScript file after which tsx is worth a try. */
const RETRY_WITH_TSX = new Set([
  'ERR_UNKNOWN_FILE_EXTENSION', // Node without type stripping
  'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX', // enums, parameter properties, ... (strip-only mode)
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
  'ERR_MODULE_NOT_FOUND', // `import './x.js'` meaning x.ts: tsx maps it, Node does not
]);

async function importFile(path: string, shown: string): Promise<{ default?: unknown }> {
  const url = pathToFileURL(path).href;
  if (!TS_EXTENSIONS.has(extname(path).toLowerCase())) return (await import(url)) as { default?: unknown };

  try {
    return (await import(url)) as { default?: unknown };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !RETRY_WITH_TSX.has(code)) throw error;
    const tsImport = await loadTsx();
    if (tsImport === undefined) {
      if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
        throw new CliError(
          `cannot load ${shown}: this Node.js cannot run TypeScript files by itself, and tsx is not installed.\n` +
            'Install it next to your project (npm i -D tsx), or point divan-routes at a .js file.',
        );
      }
      throw error;
    }
    return (await tsImport(url, import.meta.url)) as { default?: unknown };
  }
}

type TsImport = (specifier: string, parentURL: string) => Promise<unknown>;

/** `tsImport` of tsx's ESM API, or undefined when tsx is not installed. */
async function loadTsx(): Promise<TsImport | undefined> {
  const specifier = 'tsx/esm/api'; // a variable: tsx is an optional peer dependency, not a compile-time one
  try {
    const api = (await import(specifier)) as { tsImport?: TsImport };
    return typeof api.tsImport === 'function' ? api.tsImport : undefined;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return undefined;
    throw error;
  }
}

/** An error of the route file: its stack without the frames of Node's loader and of this CLI. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const stack = error.stack ?? `${error.name}: ${error.message}`;
  const ours = [new URL('./', import.meta.url).href, new URL('../../../bin/', import.meta.url).href];
  const internal = (line: string) =>
    line.includes('node:internal') ||
    ours.some((dir) => line.includes(dir)) ||
    /[\\/]node_modules[\\/]tsx[\\/]/.test(line);
  return stack
    .split('\n')
    .filter((line) => !/^\s+at /.test(line) || !internal(line))
    .join('\n');
}

/** RegExps (should a route carry one) as their `/source/flags` text, middleware functions by name. */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'function') return `[Function ${value.name || '(anonymous)'}]`;
  return value instanceof RegExp ? String(value) : value;
}
