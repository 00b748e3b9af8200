/**
 * The `hone` process: runs the command line and exits with its code. bin/hone.mjs runs it
 * through tsx; `npm run build` compiles it to out/build/cli/hone.js for plain node.
 */
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
