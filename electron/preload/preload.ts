/**
 * The sandboxed preload (compiled to out/build/preload/preload.cjs): puts the service, the shell
 * and dropped files' paths on the page, and nothing else.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { filesApi, serviceApi, shellApi } from './api.ts';

contextBridge.exposeInMainWorld('hone', serviceApi(ipcRenderer));
contextBridge.exposeInMainWorld('honeShell', shellApi(ipcRenderer));
contextBridge.exposeInMainWorld('honeFiles', filesApi((f) => webUtils.getPathForFile(f)));
