#!/usr/bin/env node
// The `hone` command (package.json "bin"): runs electron/cli/main.ts through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
