#!/usr/bin/env node
// Thin launcher: the CLI itself is compiled TypeScript (src/cli/divan.ts).
import { run } from '../dist/src/cli/divan.js';

await run();
