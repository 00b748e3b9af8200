// Unmount what each test rendered, and give happy-dom the clipboard the copy buttons use.
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  window.location.hash = '';
});
