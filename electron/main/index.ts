/** Electron's main entry (compiled to out/build/main/main.js, package.json's `main`). */
import * as electron from 'electron';
import { appPaths } from './app-paths.ts';
import { startApp } from './app.ts';

const resources = electron.app.isPackaged ? process.resourcesPath : null;
startApp(electron, { paths: appPaths(import.meta.url, resources) }).catch((e: Error) => {
  electron.dialog.showErrorBox('Hone could not start', e.stack ?? e.message);
  electron.app.exit(1);
});
