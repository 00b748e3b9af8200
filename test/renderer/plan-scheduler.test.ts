// The live plan: re-planned once the settings are still, never overwritten by an older answer.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunSettings } from '../../electron/common/service.ts';
import { PLAN_DEBOUNCE_MS, planNow, startPlanScheduler } from '../../renderer/src/actions/plan.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { model, modelList, node, opsReport, planResult, pool } from './data.ts';
import { testEnv } from './fake-service.ts';

function chosenEnv() {
  const env = testEnv();
  env.store.getState().setModelList(ready(modelList([model()])));
  env.store.getState().selectModel('/models/tiny-llama.gguf');
  env.store.getState().setDatasetSources(['/data/a.jsonl']);
  return env;
}

describe('plan scheduler', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('plans once after a burst of edits, with the last values', async () => {
    const env = chosenEnv();
    env.fake.answer('plan', (s: unknown) => planResult([pool({ limitBytes: (s as RunSettings).rank === 64 ? 1 : 1 << 30 })], opsReport([node(0)])));
    const stop = startPlanScheduler(env);
    await vi.advanceTimersByTimeAsync(PLAN_DEBOUNCE_MS + 10);
    expect(env.fake.callsOf('plan')).toHaveLength(1);
    for (const rank of [16, 32, 64]) {
      env.store.getState().setSetting('rank', rank);
      await vi.advanceTimersByTimeAsync(PLAN_DEBOUNCE_MS / 3);
    }
    expect(env.fake.callsOf('plan')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(PLAN_DEBOUNCE_MS);
    const calls = env.fake.callsOf('plan');
    expect(calls).toHaveLength(2);
    expect(calls[1][0]).toEqual({ model: '/models/tiny-llama.gguf', data: ['/data/a.jsonl'], rank: 64 });
    expect(env.store.getState().plan.result.data?.fits).toBe(false);
    stop();
  });

  it('keeps the newer plan when an older one answers last', async () => {
    vi.useRealTimers();
    const env = chosenEnv();
    const slow = env.fake.hold('plan');
    const first = planNow(env);
    env.store.getState().setSetting('ctx', 128);
    env.fake.answer('plan', planResult([pool({ pool: 'newer' })], opsReport([node(0)])));
    await planNow(env);
    slow.release(planResult([pool({ pool: 'older' })], opsReport([node(0)])));
    await first;
    expect(env.store.getState().plan.result.data?.pools[0].pool).toBe('newer');
  });

  it('shows an error with the service’s code and keeps the last plan beside it', async () => {
    vi.useRealTimers();
    const env = chosenEnv();
    env.fake.answer('plan', planResult([pool()], opsReport([node(0)])));
    await planNow(env);
    env.fake.fail('plan', 'out_of_memory', 'CPU: the compute buffer needs 9 GiB, 8 GiB free');
    env.store.getState().setSetting('ctx', 8192);
    await planNow(env);
    expect(env.store.getState().plan.result).toMatchObject({ status: 'error', error: { code: 'out_of_memory' } });
    expect(env.store.getState().plan.result.data?.pools).toHaveLength(1);
  });
});
