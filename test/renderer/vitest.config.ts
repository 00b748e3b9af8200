/**
 * The renderer's component and store tests: vitest in happy-dom, run by test/run-all.mjs as the
 * `renderer` suite (its totals come from the JSON report). Node's test runner runs everything
 * else; these need JSX and a DOM.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
  root,
  plugins: [react()],
  test: {
    environment: 'happy-dom',
    include: ['test/renderer/**/*.test.{ts,tsx}'],
    setupFiles: ['test/renderer/setup.ts'],
    // two cores shared with other work: a small pool is enough
    maxWorkers: 2,
    testTimeout: 15_000,
  },
});
