/**
 * A HoneService for component and store tests: every method records its call and answers from
 * a handler the test sets (a value, an error, or a promise it resolves when it wants: the
 * loading state). Events are emitted on demand. No engine behind it.
 */
import { HoneError, type ErrorCode } from '../../electron/common/errors.ts';
import { SERVICE_METHODS, type HoneService, type ServiceEvent, type ServiceMethod } from '../../electron/common/service.ts';
import type { AppEnv } from '../../renderer/src/app/env.ts';
import type { FileImporter } from '../../renderer/src/service/upload.ts';
import { createAppStore } from '../../renderer/src/store/store.ts';

type Handler = (...args: unknown[]) => unknown;

export interface FakeService {
  service: HoneService;
  calls: Array<{ method: ServiceMethod; args: unknown[] }>;
  /** Sets what a method answers (a function of its arguments, or a value). */
  answer(method: ServiceMethod, h: Handler | unknown): void;
  /** The method fails with this code and message. */
  fail(method: ServiceMethod, code: ErrorCode, message: string): void;
  /** The method never answers until `release` is called: the view stays loading. */
  hold(method: ServiceMethod): { release(value: unknown): void; reject(e: unknown): void };
  emit(e: ServiceEvent): void;
  callsOf(method: ServiceMethod): unknown[][];
}

export function fakeService(): FakeService {
  const handlers = new Map<ServiceMethod, Handler>();
  const calls: FakeService['calls'] = [];
  const listeners = new Set<(e: ServiceEvent) => void>();
  const service: Record<string, unknown> = {};
  for (const method of Object.keys(SERVICE_METHODS) as ServiceMethod[]) {
    const fn = async (...args: unknown[]) => {
      calls.push({ method, args });
      const h = handlers.get(method);
      if (!h) throw new HoneError('internal', `fake service: no answer set for ${method}`);
      return h(...args);
    };
    const [group, name] = method.includes('.') ? method.split('.') : [null, method];
    if (group) ((service[group] ??= {}) as Record<string, unknown>)[name] = fn;
    else service[method] = fn;
  }
  service.subscribe = (l: (e: ServiceEvent) => void) => {
    listeners.add(l);
    return () => listeners.delete(l);
  };
  return {
    service: service as unknown as HoneService,
    calls,
    answer: (method, h) => handlers.set(method, typeof h === 'function' ? (h as Handler) : () => h),
    fail: (method, code, message) =>
      handlers.set(method, () => {
        throw new HoneError(code, message);
      }),
    hold(method) {
      let release!: (v: unknown) => void;
      let reject!: (e: unknown) => void;
      const p = new Promise((res, rej) => {
        release = res;
        reject = rej;
      });
      handlers.set(method, () => p);
      return { release, reject };
    },
    emit: (e) => listeners.forEach((l) => l(e)),
    callsOf: (method) => calls.filter((c) => c.method === method).map((c) => c.args),
  };
}

/** Files become paths by name under /uploads (what web mode's upload answers), recorded. */
export function fakeFiles(): FileImporter & { given: File[][] } {
  const given: File[][] = [];
  return {
    kind: 'upload',
    given,
    async toPaths(files, onProgress) {
      given.push(files);
      onProgress?.(files.length, files.length);
      return files.map((f) => `/data/uploads/${f.name}`);
    },
  };
}

export function testEnv(fake: FakeService = fakeService()): AppEnv & { fake: FakeService; files: ReturnType<typeof fakeFiles> } {
  return { service: fake.service, store: createAppStore(), files: fakeFiles(), fake };
}
