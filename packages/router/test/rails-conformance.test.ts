/**
 * Rails conformance: every scenario of ./rails/scenarios.ts is drawn with our DSL and compared with
 * what real Rails 6.1 did for the same declaration (recorded in ./rails/rails-fixtures.json by
 * ./rails/record.rb — see the comment at its top for the re-record command):
 *   - the route list, in order (name, verb, path, handler, action, constraints, defaults);
 *   - each recognition probe (handler, action, params — values compared as strings);
 *   - each generation probe (`routes.path(name, ...args)`; a Rails error means we must throw too);
 *   - declaration errors (Rails raised ⇒ we throw an ArgumentError with the same message).
 * A test reports every mismatch of its scenario at once, one line each.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { draw } from '../src/index.js';
import type { MatcherTier } from '../src/matcher/matcher.js';
import { scenarios, type Scenario } from './rails/scenarios.js';

interface RailsRoute {
  name: string | null;
  verb: string;
  path: string;
  handler: string;
  action: string;
  requirements: Record<string, string>;
  defaults: Record<string, unknown>;
}
interface RailsRecognition {
  verb: string;
  path: string;
  result: null | { handler: string; action: string; params: Record<string, unknown>; exception?: string };
}
interface RailsGeneration {
  args: [string, ...unknown[]];
  result: string | null;
  error?: true;
  message?: string;
}
interface Fixture {
  ruby?: string;
  error?: string;
  errorClass?: string;
  routes?: RailsRoute[];
  recognize?: RailsRecognition[];
  generate?: RailsGeneration[];
}

// The compiled test lives in dist/test/; the fixtures stay next to the sources.
const fixtures: Record<string, Fixture> = JSON.parse(
  readFileSync(new URL('../../test/rails/rails-fixtures.json', import.meta.url), 'utf8'),
);

/** Expected declaration error of a scenario, after documented normalizations. */
function expectedError(f: Fixture): { name: string; message: string } | null {
  if (f.error === undefined) return null;
  // Rails 6.1 bug: Mapper#map_match raises `NameError: undefined local variable or method `on'` while
  // building the message for an unknown `on:` value. Our specification (router-api.md) gives the intended
  // ArgumentError "Unknown scope <value> given to :on" (value as written, no quotes, no colon).
  if (f.errorClass === 'NameError' && f.error.includes('Unknown scope')) {
    const on = /on: :(\w+)/.exec(f.ruby ?? '')?.[1] ?? 'photos';
    return { name: 'ArgumentError', message: `Unknown scope ${on} given to :on` };
  }
  // Handler naming (router-api.md): our option is `handler` where Rails' is `controller`, so messages name
  // what we accept: "Missing :handler key on routes definition, ...", "'X' is not a supported handler name. ...".
  const message = f.error
    .replace('Missing :controller key', 'Missing :handler key')
    .replace('is not a supported controller name', 'is not a supported handler name')
    .replace(':controller segment is not allowed', ':handler segment is not allowed');
  // Only the first line of Rails' message is compared: Rails appends multi-line advice (a guides URL)
  // to some messages (e.g. "Invalid route name, already in use: 'dup'"); ours are single lines.
  return { name: f.errorClass ?? 'ArgumentError', message: message.split('\n')[0]!.trimEnd() };
}

function fmtObj(o: Record<string, unknown> | undefined): string {
  const entries = Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '' : ` ${JSON.stringify(Object.fromEntries(entries.map(([k, v]) => [k, String(v)])))}`;
}

/**
 * Ruby's Regexp#source drops the escape of `/` written in a literal (`/[^\/]+/.source` is `[^/]+`),
 * JavaScript's keeps it (`[^\/]+`): the same pattern either way, so compare without that escape.
 */
function normalizeSources(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v).replace(/\\\//g, '/')]));
}

/** One comparable line per route; constraints/defaults are shown only when non-empty. */
function routeLine(r: {
  name: string | null;
  verb: string;
  path: string;
  handler: string;
  action: string;
  constraints: Record<string, unknown>;
  defaults: Record<string, unknown>;
}): string {
  return (
    `${r.name ?? '-'} ${r.verb || '(any)'} ${r.path} ${r.handler}#${r.action}` +
    (fmtObj(r.constraints) ? ` constraints${fmtObj(normalizeSources(r.constraints))}` : '') +
    (fmtObj(r.defaults) ? ` defaults${fmtObj(r.defaults)}` : '')
  );
}

function fmtMatch(m: { handler: string; action: string; params: Record<string, unknown> } | null): string {
  return m === null ? 'no match' : `${m.handler}#${m.action}${fmtObj(m.params) || ' {}'}`;
}

/**
 * Deliberate differences in generation: none since issue 27 (a plain object is a params hash, as
 * Rails' Hash is; a record is an object with `toParam()` or a class instance).
 */
const DELIBERATE_GENERATION: Record<string, string> = {};

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

function runScenario(s: Scenario, f: Fixture, tier: MatcherTier): string[] {
  const problems: string[] = [];
  const wantError = expectedError(f);

  let routes: ReturnType<typeof draw>;
  try {
    routes = draw(s.draw).useMatcherTier(tier);
  } catch (e) {
    if (wantError === null) return [`draw threw ${describeError(e)}; Rails declared ${f.routes?.length ?? 0} routes`];
    const got =
      e instanceof Error
        ? { name: e.name, message: e.message.split('\n')[0]!.trimEnd() }
        : { name: '?', message: String(e) };
    if (got.name !== wantError.name || got.message !== wantError.message) {
      problems.push(`error: Rails ${wantError.name}: ${wantError.message} | ours ${got.name}: ${got.message}`);
    }
    return problems;
  }
  if (wantError !== null)
    return [
      `error: Rails raised ${wantError.name}: ${wantError.message} | ours declared ${routes.list().length} routes`,
    ];

  // Routes, in order.
  const railsLines = (f.routes ?? []).map((r) => routeLine({ ...r, constraints: r.requirements }));
  const ourLines = routes.list().map(routeLine);
  const n = Math.max(railsLines.length, ourLines.length);
  for (let i = 0; i < n; i++) {
    if (railsLines[i] !== ourLines[i]) {
      problems.push(`route #${i}: Rails ${railsLines[i] ?? '(none)'} | ours ${ourLines[i] ?? '(none)'}`);
    }
  }

  // Recognition.
  for (const probe of f.recognize ?? []) {
    let want = probe.result === null ? 'no match' : fmtMatch(probe.result);
    // Deliberate: Rails decodes a malformed escape such as `%zz` to "\u0000" (its decoder reads
    // "zz" as hex 0); we keep the value as written, which loses nothing.
    if (/%(?![0-9A-Fa-f]{2})/.test(probe.path) && probe.result !== null) {
      want = fmtMatch({
        ...probe.result,
        params: Object.fromEntries(
          Object.entries(probe.result.params).map(([k, v]) => [
            k,
            typeof v === 'string' && v.includes('\u0000') ? probe.path.slice(probe.path.lastIndexOf('/') + 1) : v,
          ]),
        ),
      });
    }
    let got: string;
    try {
      got = fmtMatch(routes.recognize(probe.verb, probe.path));
    } catch (e) {
      got = `threw ${describeError(e)}`;
    }
    if (want !== got)
      problems.push(`recognize ${probe.verb} ${JSON.stringify(probe.path)}: Rails ${want} | ours ${got}`);
  }

  // Generation.
  for (const probe of f.generate ?? []) {
    const [name, ...args] = probe.args;
    const call = `path(${probe.args.map((a) => JSON.stringify(a)).join(', ')})`;
    const expected = DELIBERATE_GENERATION[call] ?? probe.result;
    let got: string;
    let threw = false;
    try {
      got = routes.path(name, ...args);
    } catch (e) {
      threw = true;
      got = `threw ${describeError(e)}`;
    }
    if (probe.error) {
      if (!threw) problems.push(`${call}: Rails raised (${probe.message}) | ours ${JSON.stringify(got)}`);
    } else if (threw || got !== expected) {
      problems.push(`${call}: Rails ${JSON.stringify(expected)} | ours ${threw ? got : JSON.stringify(got)}`);
    }
  }
  return problems;
}

/**
 * Every matcher tier answers every scenario. DIVAN_MATCHER_TIERS narrows the list (matcher-tiers.test.ts
 * runs this file again with code generation disallowed).
 */
const TIERS: MatcherTier[] = process.env.DIVAN_MATCHER_TIERS
  ? (process.env.DIVAN_MATCHER_TIERS.split(',') as MatcherTier[])
  : ['auto', 'static-map', 'walk', 'compiled-walk', 'recognizer'];

for (const tier of TIERS) {
  describe(`matcher tier: ${tier}`, () => {
    for (const s of scenarios) conformanceTest(s, tier);
  });
}

function conformanceTest(s: Scenario, tier: MatcherTier): void {
  test(`rails: ${s.name}`, () => {
    const f = fixtures[s.name];
    assert.ok(f, `no Rails fixture for "${s.name}": re-record (see test/rails/record.rb)`);
    if (f.ruby !== undefined) {
      assert.equal(f.ruby, s.ruby, `fixture for "${s.name}" is stale: re-record (see test/rails/record.rb)`);
    }
    const problems = runScenario(s, f, tier);
    if (problems.length > 0) {
      assert.fail(`${problems.length} difference(s) from Rails 6.1:\n  ${problems.join('\n  ')}`);
    }
  });
}
