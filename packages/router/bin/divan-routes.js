#!/usr/bin/env node
// divan-routes FILE [--grep TEXT] [--json] [--types OUT.d.ts]: the route table of a route set.
import { main } from '../dist/src/cli/divan-routes.js';

process.exitCode = await main(process.argv.slice(2));
