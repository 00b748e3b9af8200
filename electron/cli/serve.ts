/**
 * `hone serve`: web mode from the command line. Starts the server over a service made for the
 * data folder, prints the address (token included) and runs until Ctrl-C or SIGTERM.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HoneError, toPlain } from '../common/errors.ts';
import type { HoneService } from '../common/service.ts';
import { checkBindAddress, startServer } from '../server/server.ts';
import { resolveDataDir } from '../services/data-dir.ts';
import { findUp } from '../services/locate.ts';

export const SERVE_USAGE = `usage:
  hone serve [--port N] [--host H] [--data-dir D] [--static-dir D] [--allow-remote]

  --port N        port to listen on (default: a free one)
  --host H        address to bind (default 127.0.0.1); anything but loopback needs --allow-remote
  --data-dir D    Hone's data folder (default: $HONE_DATA_DIR, else the platform's application data folder)
  --static-dir D  the built renderer (default: out/renderer of this installation)
  --allow-remote  allow a non-loopback --host: the server is then reachable from the network
docs/web-mode.md explains the token, what is refused and the upload route.`;

/** Makes the service for a data folder; `dispose` (when present) runs at shutdown. */
export type ServiceFactory = (dataDir: string) => Promise<HoneService & { dispose?(): unknown }> | (HoneService & { dispose?(): unknown });

export interface ServeArgs {
  port: number;
  host: string;
  dataDir: string | null;
  staticDir: string | null;
  allowRemote: boolean;
  help: boolean;
}

export function parseServeArgs(argv: string[]): ServeArgs {
  const out: ServeArgs = { port: 0, host: '127.0.0.1', dataDir: null, staticDir: null, allowRemote: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const name = eq >= 0 ? a.slice(0, eq) : a;
    const value = (): string => {
      if (eq >= 0) return a.slice(eq + 1);
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new HoneError('bad_config', `option '${name}' needs a value`);
      return argv[++i];
    };
    if (name === '-h' || name === '--help') out.help = true;
    else if (name === '--allow-remote') out.allowRemote = true;
    else if (name === '--host') out.host = value();
    else if (name === '--data-dir') out.dataDir = value();
    else if (name === '--static-dir') out.staticDir = value();
    else if (name === '--port') {
      const v = value();
      const n = Number(v);
      if (!/^\d+$/.test(v) || n > 65535) throw new HoneError('bad_config', `option '--port': ${JSON.stringify(v)} is not a port number (0-65535)`);
      out.port = n;
    } else throw new HoneError('bad_config', `hone serve: unknown option '${a}'`);
  }
  return out;
}

/** The renderer's build output beside this installation (the folder holding package.json). */
function defaultStaticDir(): string {
  const root = findUp('package.json', import.meta.url) ?? resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return join(root, 'out', 'renderer');
}

export async function serve(argv: string[], createService: ServiceFactory): Promise<number> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv);
  } catch (e) {
    process.stderr.write(`hone: error: ${toPlain(e).message}\n${SERVE_USAGE}\n`);
    return 2;
  }
  if (args.help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  try {
    checkBindAddress(args.host, args.allowRemote);
    const dataDir = resolveDataDir(args.dataDir);
    const service = await createService(dataDir);
    const server = await startServer({
      service,
      host: args.host,
      port: args.port,
      dataDir,
      staticDir: args.staticDir ? resolve(args.staticDir) : defaultStaticDir(),
      allowRemote: args.allowRemote,
    });
    process.stdout.write(`Hone is running: open ${server.url}\n(data folder ${dataDir}; Ctrl-C stops it)\n`);
    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        // a second Ctrl-C while closing ends at once
        process.once('SIGINT', () => process.exit(130));
        process.stdout.write('hone serve: stopping\n');
        void server
          .close()
          .then(() => service.dispose?.())
          .catch((e: unknown) => process.stderr.write(`hone serve: while stopping: ${toPlain(e).message}\n`))
          .finally(done);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    return 0;
  } catch (e) {
    const p = toPlain(e);
    process.stderr.write(`hone: error: ${p.message}\n`);
    return p.code === 'bad_config' || p.code === 'invalid_argument' ? 2 : 1;
  }
}
