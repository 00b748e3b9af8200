/** What every action and view needs: the one service, the one store, and how files become paths. */
import type { HoneService } from '../../../electron/common/service.ts';
import type { HoneShell } from '../../../electron/common/shell.ts';
import type { FileImporter } from '../service/upload.ts';
import type { ConnectionInfo } from '../service/web-client.ts';
import type { AppStore } from '../store/store.ts';

export interface AppEnv {
  service: HoneService;
  store: AppStore;
  files: FileImporter;
  /** The desktop shell (native pickers, the file manager, the app menu); absent in web mode. */
  shell?: HoneShell;
  /** Web mode's socket state; absent in Electron (IPC is always up). */
  connection?: { get(): ConnectionInfo; on(listener: (i: ConnectionInfo) => void): () => void };
}
