/**
 * `hone serve` in its own process over the fake service (web-server.ts), so a test can read
 * the printed address, use it, and stop the process with a signal. Arguments: serve's flags.
 */
import { serve } from '../../electron/cli/serve.ts';
import { fakeService } from './web-server.ts';

const fake = fakeService();
const service = Object.assign(fake.service, { dispose: () => console.log('disposed') });
process.exitCode = await serve(process.argv.slice(2), (dataDir) => {
  console.log(`service for ${dataDir}`);
  return service;
});
