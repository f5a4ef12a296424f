#!/usr/bin/env node
// Prints the Ruby side of the conformance scenarios as JSON on stdout:
//   [{ name, ruby, recognize: [[verb, path]...], generate: [[name, ...args]...] }, ...]
// Reads the COMPILED scenarios (run `npx tsc -b` at the repository root first).
// Used by record.rb; see the comment at the top of that file.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));
const compiled = join(here, '..', '..', 'dist', 'test', 'rails', 'scenarios.js');
const { scenarios } = await import(pathToFileURL(compiled).href);

const out = scenarios.map((s) => ({
  name: s.name,
  ruby: s.ruby,
  recognize: s.recognize ?? [],
  generate: s.generate ?? [],
}));
const names = new Set();
for (const s of out) {
  if (names.has(s.name)) throw new Error(`duplicate scenario name: ${s.name}`);
  names.add(s.name);
}
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
