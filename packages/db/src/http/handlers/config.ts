/** `/_node/{node}/_config[/{section}[/{key}]]`: this server's settings (server/config.ts), admin-only. */
import { requireAdmin } from '../../auth/index.js';
import { CouchError } from '../../errors.js';
import { readConfig } from '../../server/config.js';
import { param, type RequestContext } from '../context.js';
import { sendJson } from '../respond.js';

export const config = {
  async all(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, await readConfig(ctx.server));
  },

  /** An unknown section is `{}`, as in CouchDB. */
  async section(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    sendJson(ctx, 200, (await readConfig(ctx.server))[param(ctx, 'section')] ?? {});
  },

  async show(ctx: RequestContext): Promise<void> {
    requireAdmin(ctx.user);
    const value = (await readConfig(ctx.server))[param(ctx, 'section')]?.[param(ctx, 'key')];
    if (value === undefined) throw new CouchError('not_found', 'unknown_config_value');
    sendJson(ctx, 200, value);
  },

  /** PUT and DELETE: every setting comes from a flag at start; none is changed over HTTP yet. */
  change(ctx: RequestContext): void {
    requireAdmin(ctx.user);
    const name = `[${param(ctx, 'section')}] ${param(ctx, 'key')}`;
    throw new CouchError(
      'forbidden',
      `${name} cannot be changed over HTTP on this server: settings come from \`divan serve\` flags.`,
    );
  },
};
