/**
 * Two Divan nodes of one deployment: two test servers on one fresh PostgreSQL schema. Called in
 * a `describe`, they start before its tests (handed to `started`) and close after them, and the
 * schema is dropped.
 */
import { after, before } from 'node:test';
import { dropSchema, freshSchema, testPostgresUrl } from './postgres.js';
import { startTestServer, type TestServer } from './server.js';

export interface TwoNodes {
  a: TestServer;
  b: TestServer;
}

export function twoNodesOnPostgres(
  label: string,
  started: (nodes: TwoNodes) => void,
  logs: { a?: (line: string) => void; b?: (line: string) => void } = {},
): { url: string | Error; schema: string } {
  const url = testPostgresUrl();
  const schema = freshSchema(label);
  let nodes: Partial<TwoNodes> = {};
  before(async () => {
    if (url instanceof Error) throw url;
    nodes.a = await startTestServer({ storage: { url, schema }, log: logs.a });
    nodes.b = await startTestServer({ storage: { url, schema }, log: logs.b });
    started(nodes as TwoNodes);
  });
  after(async () => {
    await nodes.a?.close();
    await nodes.b?.close();
    nodes = {};
    if (!(url instanceof Error)) await dropSchema(url, schema);
  });
  return { url, schema };
}
