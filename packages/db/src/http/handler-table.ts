/**
 * The handler table: each family of endpoints (handlers/) under the name routes.ts gives it.
 * Typed against the routes with the router's own handler-table type, every action required, so
 * a route naming an action no handler has, or a handler the routes never name, fails `tsc`.
 */
import type { HandlerTableFor } from '@divan/router';
import type { Handler } from './context.js';
import type { ApiRoutes } from './routes.js';
import { config } from './handlers/config.js';
import { session } from './handlers/session.js';
import { allDocsHandlers, designDocsHandlers, localDocsHandlers } from './handlers/all-docs.js';
import { bulk } from './handlers/bulk.js';
import { changes } from './handlers/changes.js';
import { databases } from './handlers/databases.js';
import { documents } from './handlers/documents.js';
import { attachments } from './handlers/attachments.js';
import { maintenance } from './handlers/maintenance.js';
import { mango } from './handlers/mango.js';
import { partitions } from './handlers/partitions.js';
import { errors, server } from './handlers/server.js';
import { views } from './handlers/views.js';
import { search } from './handlers/search.js';
import { nouveau } from './handlers/nouveau.js';
import { designFunctions } from './handlers/design-functions.js';
import { node } from './handlers/node.js';
import { scheduler } from './handlers/scheduler.js';
import { fauxton } from './handlers/fauxton.js';
import { dbUpdates } from './handlers/db-updates.js';

/** Every `handler#action` the routes declare, and no other. */
type HandlerTable = {
  [H in keyof HandlerTableFor<ApiRoutes, 'params'>]-?: {
    [A in keyof NonNullable<HandlerTableFor<ApiRoutes, 'params'>[H]>]-?: Handler;
  };
};

export const HANDLERS: HandlerTable = {
  server,
  session,
  config,
  errors,
  databases,
  documents,
  attachments,
  all_docs: allDocsHandlers,
  design_docs: designDocsHandlers,
  local_docs: localDocsHandlers,
  changes,
  bulk,
  views,
  search,
  nouveau,
  design_functions: designFunctions,
  maintenance,
  mango,
  partitions,
  fauxton,
  node,
  scheduler,
  db_updates: dbUpdates,
};

/** The same table, looked up by the names a match gives. */
const ACTIONS: Partial<Record<string, Partial<Record<string, Handler>>>> = HANDLERS;

/** The action a matched route names. */
export function handlerOf(route: { handler: string; action: string }): Handler | undefined {
  return ACTIONS[route.handler]?.[route.action];
}
