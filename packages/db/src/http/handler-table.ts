/**
 * The handler table: each family of endpoints (handlers/) under the name routes.ts gives it.
 * Typed against the routes with the router's own handler-table type, every action required, so
 * a route naming an action no handler has, or a handler the routes never name, fails `tsc`.
 */
import type { HandlerTableFor } from '@divan/router';
import type { Handler } from './context.js';
import { type ApiRoutes, routes } from './routes.js';
import { CouchError } from '../errors.js';
import { session } from './handlers/session.js';
import { databases } from './handlers/databases.js';
import { documents } from './handlers/documents.js';
import { errors, server } from './handlers/server.js';

/** Every `handler#action` the routes declare, and no other. */
type HandlerTable = {
  [H in keyof HandlerTableFor<ApiRoutes, 'params'>]-?: {
    [A in keyof NonNullable<HandlerTableFor<ApiRoutes, 'params'>[H]>]-?: Handler;
  };
};

/**
 * The families an idle server does not need, each imported on its first request (issue #31: a
 * fresh server loads only what answers `GET /`, sessions and document reads and writes; Mango,
 * views, search, design functions, replication's endpoints... load with their first use).
 */
export const HANDLER_MODULES = {
  mango: () => import('./handlers/mango.js').then((m) => m.mango),
  search: () => import('./handlers/search.js').then((m) => m.search),
  nouveau: () => import('./handlers/nouveau.js').then((m) => m.nouveau),
  design_functions: () => import('./handlers/design-functions.js').then((m) => m.designFunctions),
  views: () => import('./handlers/views.js').then((m) => m.views),
  partitions: () => import('./handlers/partitions.js').then((m) => m.partitions),
  node: () => import('./handlers/node.js').then((m) => m.node),
  scheduler: () => import('./handlers/scheduler.js').then((m) => m.scheduler),
  changes: () => import('./handlers/changes.js').then((m) => m.changes),
  maintenance: () => import('./handlers/maintenance.js').then((m) => m.maintenance),
  db_updates: () => import('./handlers/db-updates.js').then((m) => m.dbUpdates),
  bulk: () => import('./handlers/bulk.js').then((m) => m.bulk),
  attachments: () => import('./handlers/attachments.js').then((m) => m.attachments),
  fauxton: () => import('./handlers/fauxton.js').then((m) => m.fauxton),
  config: () => import('./handlers/config.js').then((m) => m.config),
  all_docs: () => import('./handlers/all-docs.js').then((m) => m.allDocsHandlers),
  design_docs: () => import('./handlers/all-docs.js').then((m) => m.designDocsHandlers),
  local_docs: () => import('./handlers/all-docs.js').then((m) => m.localDocsHandlers),
};

type Loaded<H extends keyof typeof HANDLER_MODULES> = Awaited<ReturnType<(typeof HANDLER_MODULES)[H]>>;

/** Each action the routes name for that family, calling it once its module is loaded (then cached). */
function onFirstUse<H extends keyof typeof HANDLER_MODULES>(family: H): Loaded<H> {
  let loaded: Promise<Partial<Record<string, Handler>>> | undefined;
  const actions: Record<string, Handler> = {};
  for (const route of routes.list()) {
    if (route.handler !== family || actions[route.action] !== undefined) continue;
    const { action } = route;
    actions[action] = async (ctx) => {
      loaded ??= HANDLER_MODULES[family]();
      const handler = (await loaded)[action];
      if (handler === undefined) throw new CouchError('not_implemented', `${family}#${action}`);
      await handler(ctx);
    };
  }
  return actions as Loaded<H>;
}

export const HANDLERS: HandlerTable = {
  server,
  session,
  config: onFirstUse('config'),
  errors,
  databases,
  documents,
  attachments: onFirstUse('attachments'),
  all_docs: onFirstUse('all_docs'),
  design_docs: onFirstUse('design_docs'),
  local_docs: onFirstUse('local_docs'),
  changes: onFirstUse('changes'),
  bulk: onFirstUse('bulk'),
  views: onFirstUse('views'),
  search: onFirstUse('search'),
  nouveau: onFirstUse('nouveau'),
  design_functions: onFirstUse('design_functions'),
  maintenance: onFirstUse('maintenance'),
  mango: onFirstUse('mango'),
  partitions: onFirstUse('partitions'),
  fauxton: onFirstUse('fauxton'),
  node: onFirstUse('node'),
  scheduler: onFirstUse('scheduler'),
  db_updates: onFirstUse('db_updates'),
};

/** The same table, looked up by the names a match gives. */
const ACTIONS: Partial<Record<string, Partial<Record<string, Handler>>>> = HANDLERS;

/** The action a matched route names. */
export function handlerOf(route: { handler: string; action: string }): Handler | undefined {
  return ACTIONS[route.handler]?.[route.action];
}
