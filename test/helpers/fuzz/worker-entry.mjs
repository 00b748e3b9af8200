// A worker thread does not inherit the TypeScript loader on Node 20: register it, then run.
import { tsImport } from 'tsx/esm/api';

await tsImport('./worker.ts', import.meta.url);
