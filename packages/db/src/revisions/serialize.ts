import type { RevNode, RevTree } from './tree.js';

/**
 * A compact text form of a tree, stored with every document:
 *
 *     tree  = root *( ";" root )            (the empty string for an empty tree)
 *     root  = generation ":" node
 *     node  = id [ "d" ] [ "m" ] [ "." node / "(" node 1*( "," node ) ")" ]
 *     id    = 32 lower-case hex digits / a JSON string
 *
 * `d` marks a deleted rev, `m` one without a stored body; `.` continues a linear history
 * without nesting, parentheses hold two or more children. A one-rev doc takes 34 bytes
 * (`1:967a00dff5e02add41819138abb3284d`).
 */
/**
 * Whether a stored tree is one line of revisions (one root, no branch), whose one leaf is the
 * document's winner, so readers need not parse it. A JSON-string id holding `(` or `;` answers
 * false, which only costs a parse.
 */
export function isOneLineTree(text: string): boolean {
  return !text.includes('(') && !text.includes(';');
}

export function serializeTree(tree: RevTree): string {
  if (tree.length === 1 && tree[0]!.node.children.length === 0) {
    // One rev (every new document).
    const { pos, node } = tree[0]!;
    const id = isPlainId(node.id) ? node.id : JSON.stringify(node.id);
    return `${pos}:${id}${node.deleted ? 'd' : ''}${node.stored ? '' : 'm'}`;
  }
  const parts: string[] = [];
  for (let r = 0; r < tree.length; r++) {
    if (r > 0) parts.push(';');
    parts.push(`${tree[r]!.pos}:`);
    // Work items: a node to write, or literal punctuation.
    const work: (RevNode | string)[] = [tree[r]!.node];
    while (work.length > 0) {
      const item = work.pop()!;
      if (typeof item === 'string') {
        parts.push(item);
        continue;
      }
      parts.push(isPlainId(item.id) ? item.id : JSON.stringify(item.id));
      if (item.deleted) parts.push('d');
      if (!item.stored) parts.push('m');
      const { children } = item;
      if (children.length === 1) {
        parts.push('.');
        work.push(children[0]!);
      } else if (children.length > 1) {
        parts.push('(');
        work.push(')');
        for (let i = children.length - 1; i >= 0; i--) {
          work.push(children[i]!);
          if (i > 0) work.push(',');
        }
      }
    }
  }
  return parts.join('');
}

/** Reads what serializeTree wrote; throws a SyntaxError on anything else. */
export function parseTree(text: string): RevTree {
  const tree: RevTree = [];
  if (text === '') return tree;
  let i = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`bad rev tree at ${i}: ${what}`);
  };

  const readNode = (): RevNode => {
    let id: string;
    if (text.charCodeAt(i) === 34) {
      // A JSON string: find its closing quote, skipping escaped characters.
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      if (j >= text.length) fail('unterminated id');
      id = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
    } else {
      id = text.slice(i, i + 32);
      if (!isPlainId(id)) fail('expected a rev id');
      i += 32;
    }
    const node: RevNode = { id, deleted: false, stored: true, children: [] };
    if (text.charCodeAt(i) === 100) {
      node.deleted = true;
      i++;
    }
    if (text.charCodeAt(i) === 109) {
      node.stored = false;
      i++;
    }
    return node;
  };

  for (;;) {
    const colon = text.indexOf(':', i);
    if (colon < 0) fail('expected a generation');
    const digits = text.slice(i, colon);
    if (!/^[0-9]+$/.test(digits)) fail('expected a generation');
    i = colon + 1;
    const root = readNode();
    tree.push({ pos: Number(digits), node: root });
    // `current` is the node a "." or "(" would attach to; null right after a ")".
    let current: RevNode | null = root;
    const groups: RevNode[] = [];
    for (;;) {
      const c = text[i];
      if (c === '.' || c === '(') {
        if (current === null) fail(`unexpected ${c}`);
        i++;
        if (c === '(') groups.push(current!);
        const child = readNode();
        current!.children.push(child);
        current = child;
      } else if (c === ',') {
        if (groups.length === 0) fail('unexpected ,');
        i++;
        const child = readNode();
        groups[groups.length - 1]!.children.push(child);
        current = child;
      } else if (c === ')') {
        if (groups.length === 0) fail('unexpected )');
        if (groups.pop()!.children.length < 2) fail('a group needs two children');
        i++;
        current = null;
      } else if (c === ';' || c === undefined) {
        if (groups.length > 0) fail('unclosed (');
        break;
      } else {
        fail(`unexpected ${c}`);
      }
    }
    if (i >= text.length) return tree;
    i++; // ;
  }
}

function isPlainId(id: string): boolean {
  if (id.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}
