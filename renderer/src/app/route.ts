/** The views, addressed by the URL's hash (#/train) so a reload opens the same one. */
import { useSyncExternalStore } from 'react';

export const VIEWS = ['models', 'datasets', 'settings', 'train', 'ops', 'runs'] as const;
export type ViewName = (typeof VIEWS)[number];

export function viewOf(hash: string): ViewName {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return (VIEWS as readonly string[]).includes(name) ? (name as ViewName) : 'models';
}

const subscribe = (cb: () => void) => {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
};

export function useView(): ViewName {
  return useSyncExternalStore(subscribe, () => viewOf(window.location.hash));
}

export function go(view: ViewName): void {
  window.location.hash = `#/${view}`;
}
