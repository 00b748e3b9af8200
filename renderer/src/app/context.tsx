/** The env (service, store, files) for React: one provider at the root, hooks for views. */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppState } from '../store/app-state.ts';
import type { AppEnv } from './env.ts';

const EnvContext = createContext<AppEnv | null>(null);

export function EnvProvider({ env, children }: { env: AppEnv; children: ReactNode }) {
  return <EnvContext.Provider value={env}>{children}</EnvContext.Provider>;
}

export function useEnv(): AppEnv {
  const env = useContext(EnvContext);
  if (!env) throw new Error('useEnv: no EnvProvider above this component');
  return env;
}

/** Reads the store; the component re-renders when the selected value changes (Object.is). */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useEnv().store, selector);
}
