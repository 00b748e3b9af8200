#!/usr/bin/env node
// The `hone` command (package.json "bin") in a checkout: runs electron/cli/hone.ts through tsx.
// `npm run build` makes out/build/cli/hone.js, the same command for plain node (docs/building.md).
import { register } from 'tsx/esm/api';

register();
await import('../electron/cli/hone.ts');
