/**
 * The Fastify URLs a declared path needs so that Fastify's router reaches every spelling Divan
 * recognizes for it (the Fastify plugin claims no catch-all): optional groups expand to each
 * variant (`/posts(.:format)` → `/posts` and `/posts.:format`: Fastify's `/posts` does not
 * take `/posts.json`), a glob ending the path becomes Fastify's wildcard. Recognition still decides which route answers; these only bring requests in.
 */

/** How a declared path reads to Fastify: its URLs, and whether one is a wildcard (broader than the route). */
export interface FastifyUrls {
  urls: string[];
  wildcard: boolean;
}

/** A segment Fastify's router reads as we do: a word, a whole param, either with `.:format`. */
const SEGMENT = /^(?:[\w~.-]+|:\w+)(?:\.:\w+)?$/;
/** A glob segment (`*path`, `*path.:format`): only as the last segment, as Fastify's `*`. */
const GLOB = /^\*\w+(?:\.:\w+)?$/;

/**
 * The URLs of a declared path, or null when Fastify's router cannot express it. A param whose
 * constraint takes a slash (`id: /.+/`) spans segments, as a glob does. A prefix route
 * (`anchored` false) also answers what follows its path, as Rails' `anchor: false` does.
 */
export function fastifyUrls(
  path: string,
  constraints: Record<string, string> = {},
  anchored = true,
): FastifyUrls | null {
  const urls: string[] = [];
  let wildcard = false;
  const spanning = Object.keys(constraints).filter((name) => takesSlash(constraints[name]!));
  for (const variant of expandOptional(path)) {
    const url = variantUrl(spanning.reduce((v, name) => v.replace(new RegExp(`:${name}\\b`), `*${name}`), variant));
    if (url === null) return null;
    if (!anchored && !url.endsWith('*')) urls.push(url, ...prefixUrls(url));
    else urls.push(url);
    wildcard ||= !anchored || url.endsWith('*');
  }
  return { urls: [...new Set(urls)], wildcard };
}

/**
 * What else a prefix route's URL answers: Rails matches `^path(?:\b|$|/)`. After a word,
 * Fastify's `word*` takes every continuation (recognition keeps only the word boundaries);
 * after a param (which takes all but a slash), what follows a slash.
 */
function prefixUrls(url: string): string[] {
  if (url === '/') return ['/*'];
  return /:\w+$/.test(url) ? [`${url}/*`] : [`${url}*`];
}

function takesSlash(source: string): boolean {
  try {
    return new RegExp(`^(?:${source})$`).test('a/b');
  } catch {
    return true; // a constraint we cannot read: never claim to know its segment
  }
}

function variantUrl(variant: string): string | null {
  if (variant === '' || variant === '/') return '/';
  const segments = variant.split('/').slice(1);
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (SEGMENT.test(segment)) out.push(segment);
    else if (i === segments.length - 1 && GLOB.test(segment)) out.push('*');
    else return null;
  }
  return `/${out.join('/')}`;
}

/** `/a(/:b(.:format))` → `/a`, `/a/:b`, `/a/:b.:format`: every way its optional groups can be left out or in. */
function expandOptional(path: string): string[] {
  const open = path.indexOf('(');
  if (open === -1) return [path];
  let depth = 0;
  let close = -1;
  for (let i = open; i < path.length; i++) {
    if (path[i] === '(') depth++;
    else if (path[i] === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close === -1) return [path];
  const before = path.slice(0, open);
  const inner = path.slice(open + 1, close);
  const after = path.slice(close + 1);
  return [...expandOptional(before + after), ...expandOptional(before + inner + after)];
}

/** The key Fastify's router files a URL under: param names do not tell two URLs apart. */
export function fastifyUrlKey(method: string, url: string): string {
  return `${method} ${url.replace(/:\w+/g, ':')}`;
}
