/**
 * A tiny RouteSetLike over hand-written RouteInfo rows, so that the readers of a route set (table,
 * helper types, node adapter, CLI) are tested on their own, independently of the core's `draw`.
 */
import type { Match, RouteHelper, RouteInfo, RouteSetLike } from '../../src/types.js';

/** A RouteInfo with defaults for what a test does not care about. */
export function route(info: Partial<RouteInfo> & Pick<RouteInfo, 'verb' | 'path' | 'handler' | 'action'>): RouteInfo {
  return { name: null, constraints: {}, defaults: {}, ...info };
}

/** The eight routes of `resources :posts`, as Rails 6.1 lists them. */
export function postsRoutes(): RouteInfo[] {
  const r = (name: string | null, verb: string, path: string, action: string) =>
    route({ name, verb, path, handler: 'posts', action });
  return [
    r('posts', 'GET', '/posts(.:format)', 'index'),
    r(null, 'POST', '/posts(.:format)', 'create'),
    r('new_post', 'GET', '/posts/new(.:format)', 'new'),
    r('edit_post', 'GET', '/posts/:id/edit(.:format)', 'edit'),
    r('post', 'GET', '/posts/:id(.:format)', 'show'),
    r(null, 'PATCH', '/posts/:id(.:format)', 'update'),
    r(null, 'PUT', '/posts/:id(.:format)', 'update'),
    r(null, 'DELETE', '/posts/:id(.:format)', 'destroy'),
  ];
}

function compile(info: RouteInfo): { re: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '';
  for (let i = 0; i < info.path.length; i++) {
    const c = info.path[i];
    if (c === '(') source += '(?:';
    else if (c === ')') source += ')?';
    else if (c === ':' || c === '*') {
      const name = /^\w+/.exec(info.path.slice(i + 1))![0];
      i += name.length;
      names.push(name);
      source += `(${info.constraints[name] ?? (c === '*' ? '.+' : '[^/.?]+')})`;
    } else source += c!.replace(/[.*+?^${}|[\]\\/]/g, '\\$&');
  }
  return { re: new RegExp(`^${source}$`), names };
}

function verbs(info: RouteInfo): string[] {
  return info.verb === '' ? [] : info.verb.split('|');
}

export class StubRouteSet implements RouteSetLike {
  readonly helpers: Record<string, RouteHelper> = {};
  constructor(private readonly routes: RouteInfo[]) {}

  list(): RouteInfo[] {
    return this.routes.map((r) => ({ ...r, constraints: { ...r.constraints }, defaults: { ...r.defaults } }));
  }

  recognize(method: string, path: string): Match | null {
    const m = method.toUpperCase();
    for (const info of this.routes) {
      const vs = verbs(info);
      if (vs.length > 0 && !vs.includes(m)) continue;
      const { re, names } = compile(info);
      const found = re.exec(path);
      if (!found) continue;
      const params: Record<string, unknown> = { ...info.defaults };
      names.forEach((name, i) => {
        const value = found[i + 1];
        if (value !== undefined) params[name] = decodeURIComponent(value);
      });
      return { route: info, handler: info.handler, action: info.action, params };
    }
    return null;
  }

  allowedMethods(path: string): string[] {
    const out = new Set<string>();
    for (const info of this.routes) {
      if (!compile(info).re.test(path)) continue;
      const vs = verbs(info).length > 0 ? verbs(info) : ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
      for (const v of vs) {
        out.add(v);
        if (v === 'GET') out.add('HEAD');
      }
    }
    return [...out];
  }

  path(name: string): string {
    throw new Error(`StubRouteSet.path(${name}) is not implemented`);
  }

  url(name: string): string {
    throw new Error(`StubRouteSet.url(${name}) is not implemented`);
  }
}
