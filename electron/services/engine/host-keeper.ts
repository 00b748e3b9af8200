/**
 * The service's engine host: started on first use, started again on the next use after it
 * died, ended on close. It also asks the host once what the engine can do (`capabilities`)
 * and keeps the answer; a host that does not know the request yet answers `unsupported`.
 */
import type { EngineCapabilities } from '../../common/runs.ts';
import { HoneError, toPlain } from '../../common/errors.ts';
import type { EngineHost } from './client.ts';

export interface HostExit {
  reason: string;
  lastCheckpoint: string | null;
}

export class HostKeeper {
  private host: EngineHost | null = null;
  private capabilitiesCache: EngineCapabilities | null = null;
  /** The host that answered `unknown_request` to capabilities (asking it again gives the same). */
  private capabilitiesUnknownTo: EngineHost | null = null;
  private closing = false;

  constructor(
    private factory: () => EngineHost,
    /** A host died that was not ended by close(). */
    private onExit: (exit: HostExit) => void,
  ) {}

  /** The live host, started when there is none. */
  get(): EngineHost {
    if (this.closing) throw new HoneError('disposed', 'the service was disposed: no engine host is started any more');
    if (this.host?.alive) return this.host;
    const host = this.factory();
    this.host = host;
    host.once('host-exited', (exit: HostExit) => {
      if (!this.closing) this.onExit(exit);
    });
    return host;
  }

  /** What the engine can do; `unsupported` while the host does not answer the request. */
  async capabilities(): Promise<EngineCapabilities> {
    if (this.capabilitiesCache) return this.capabilitiesCache;
    const host = this.get();
    if (this.capabilitiesUnknownTo === host) throw notYet();
    try {
      this.capabilitiesCache = await host.request('capabilities', {});
      return this.capabilitiesCache;
    } catch (err) {
      if (toPlain(err).code !== 'unknown_request') throw err;
      this.capabilitiesUnknownTo = host;
      throw notYet();
    }
  }

  /** Ends the host (running jobs end with it: stop them first) and starts no other. */
  async close(): Promise<void> {
    this.closing = true;
    const host = this.host;
    if (host?.alive) {
      host.kill();
      await host.closed();
    }
  }
}

function notYet(): HoneError {
  return new HoneError('unsupported', "this engine host does not report the engine's capabilities yet (it does not know the 'capabilities' request)");
}
