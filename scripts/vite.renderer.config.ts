/**
 * `npm run build:renderer`: renderer/ bundled to out/renderer. This file runs under Node, so it
 * lives here rather than in renderer/ (which may not import Node builtins). One bundle serves
 * Electron (loaded from disk) and web mode (`hone serve` serves out/renderer): asset URLs are
 * relative and nothing is loaded from elsewhere (web mode's CSP allows only 'self').
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('../renderer'),
  base: './',
  plugins: [react()],
  build: {
    outDir: here('../out/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // one small app: a single chunk keeps the CSP-friendly output simple
    chunkSizeWarningLimit: 1500,
  },
  server: { fs: { allow: [here('..')] } },
});
