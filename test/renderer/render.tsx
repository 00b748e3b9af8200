/** Renders a view inside the env provider, with the store and fake service a test set up. */
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { EnvProvider } from '../../renderer/src/app/context.tsx';
import type { AppEnv } from '../../renderer/src/app/env.ts';

export function renderWith(env: AppEnv, ui: ReactElement) {
  return render(<EnvProvider env={env}>{ui}</EnvProvider>);
}
