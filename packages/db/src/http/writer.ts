/** The writer of a request's document writes: its user, and the `_security` it was authorized against (./access.ts). */
import type { Writer } from '../documents/database.js';
import type { RequestContext } from './context.js';

export function writerOf(ctx: RequestContext): Writer {
  const access = ctx.access;
  if (access === undefined) throw new Error('write without an authorized database');
  return { user: ctx.user, security: access.security };
}
