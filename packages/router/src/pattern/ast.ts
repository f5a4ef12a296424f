/**
 * A route path parsed once into tokens (Journey's grammar): `/posts/:id(.:format)` becomes
 * slash, literal `posts`, slash, param `id`, group(dot, param `format`). Matching, generation
 * and listing all read this one parse.
 */

export type PathNode =
  | { type: 'slash' }
  | { type: 'dot' }
  | { type: 'literal'; text: string }
  | { type: 'param'; name: string }
  | { type: 'glob'; name: string }
  | { type: 'group'; children: PathNode[] };

const SLASH: PathNode = { type: 'slash' };
const DOT: PathNode = { type: 'dot' };

/** `\w` by char code: what a param or glob name is made of. */
export function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 // _
  );
}

/** Parses a normalized route path. Throws on unbalanced parentheses. */
export function parsePath(path: string): PathNode[] {
  let pos = 0;

  function sequence(depth: number): PathNode[] {
    const out: PathNode[] = [];
    let literal = '';
    const flush = () => {
      if (literal !== '') {
        out.push({ type: 'literal', text: literal });
        literal = '';
      }
    };
    while (pos < path.length) {
      const ch = path[pos]!;
      if (ch === '/') {
        flush();
        out.push(SLASH);
        pos++;
      } else if (ch === '.') {
        flush();
        out.push(DOT);
        pos++;
      } else if (ch === '(') {
        flush();
        pos++;
        out.push({ type: 'group', children: sequence(depth + 1) });
      } else if (ch === ')') {
        if (depth === 0) throw new Error(`Unbalanced ')' in route path ${path}`);
        flush();
        pos++;
        return out;
      } else if ((ch === ':' || ch === '*') && pos + 1 < path.length && isWordChar(path.charCodeAt(pos + 1))) {
        flush();
        let end = pos + 1;
        while (end < path.length && isWordChar(path.charCodeAt(end))) end++;
        const name = path.slice(pos + 1, end);
        out.push(ch === ':' ? { type: 'param', name } : { type: 'glob', name });
        pos = end;
      } else if (ch === '\\' && pos + 1 < path.length) {
        literal += path[pos + 1];
        pos += 2;
      } else {
        literal += ch;
        pos++;
      }
    }
    if (depth > 0) throw new Error(`Unbalanced '(' in route path ${path}`);
    flush();
    return out;
  }

  return sequence(0);
}

/** A param or glob of a path. */
export type ParamNode = Extract<PathNode, { type: 'param' | 'glob' }>;

/** Calls `each` for every param and glob in path order, `required` false inside an optional group. */
export function visitParams(
  nodes: PathNode[],
  each: (node: ParamNode, required: boolean) => void,
  required = true,
): void {
  for (const node of nodes) {
    if (node.type === 'param' || node.type === 'glob') each(node, required);
    else if (node.type === 'group') visitParams(node.children, each, false);
  }
}

/** How `renderPath` spells each kind of node (a slash is always `/`). */
export interface PathSpelling {
  dot: string;
  literal(text: string): string;
  param(node: ParamNode): string;
  group(children: PathNode[]): string;
}

/** A path written out node by node: as a RegExp source (route.ts) or as a URL (the generator). */
export function renderPath(nodes: PathNode[], spelling: PathSpelling): string {
  let out = '';
  for (const node of nodes) {
    switch (node.type) {
      case 'slash':
        out += '/';
        break;
      case 'dot':
        out += spelling.dot;
        break;
      case 'literal':
        out += spelling.literal(node.text);
        break;
      case 'param':
      case 'glob':
        out += spelling.param(node);
        break;
      case 'group':
        out += spelling.group(node.children);
        break;
    }
  }
  return out;
}

/** Names of every param and glob, in path order (Rails' `segment_keys`), each once. */
export function segmentKeys(nodes: PathNode[]): string[] {
  const keys: string[] = [];
  visitParams(nodes, (node) => {
    if (!keys.includes(node.name)) keys.push(node.name);
  });
  return keys;
}

/** Names of the params and globs outside any optional group (Rails' `required_parts`). */
export function requiredKeys(nodes: PathNode[]): string[] {
  const keys: string[] = [];
  visitParams(nodes, (node, required) => {
    if (required && !keys.includes(node.name)) keys.push(node.name);
  });
  return keys;
}

/**
 * Every concrete shape of a path with its optional groups either taken or left out, in the
 * order a backtracking regex would try them (take before skip, leftmost first).
 */
export function expandOptional(nodes: PathNode[]): PathNode[][] {
  let variants: PathNode[][] = [[]];
  for (const node of nodes) {
    if (node.type === 'group') {
      const inner = expandOptional(node.children);
      const next: PathNode[][] = [];
      for (const prefix of variants) {
        for (const tail of inner) next.push(prefix.concat(tail));
        next.push(prefix);
      }
      variants = next;
    } else {
      for (const v of variants) v.push(node);
    }
  }
  return variants;
}
