/**
 * Calls a HoneService method by its wire name after validation: the one dispatcher every
 * transport uses (web mode's WebSocket, Electron's IPC in main). No platform imports.
 */
import type { HoneService, ServiceMethod } from './service.ts';
import { validateCall } from './validate.ts';

type AnyFn = (...args: unknown[]) => Promise<unknown>;

/** The function behind a wire name (`runs.start` → service.runs.start), bound to its group. */
export function methodOf(service: HoneService, method: ServiceMethod): AnyFn {
  const [group, name] = method.includes('.') ? method.split('.') : [null, method];
  const owner = (group ? (service as unknown as Record<string, unknown>)[group] : service) as Record<string, unknown>;
  return (owner[name] as AnyFn).bind(owner);
}

export async function dispatchCall(service: HoneService, method: unknown, args: unknown): Promise<unknown> {
  const call = validateCall(method, args);
  return methodOf(service, call.method)(...call.args);
}
