/** The renderer's entry: one service, one store, wired once, then the window. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { EnvProvider } from './app/context.tsx';
import type { AppEnv } from './app/env.ts';
import { startApp } from './app/start.ts';
import { getServiceLink } from './service/get-service.ts';
import { createAppStore } from './store/store.ts';
import './styles/app.css';

const link = getServiceLink();
// localStorage can be refused (a locked-down profile): the window then forgets on reload
const storage = (() => {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
})();
const env: AppEnv = { service: link.service, files: link.files, shell: link.shell, connection: link.connection, store: createAppStore({ storage }) };
startApp(env);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <EnvProvider env={env}>
      <App />
    </EnvProvider>
  </StrictMode>,
);
