// One job at a time on the engine host: a start the person asked for waits for the window's own
// background asks (plan, inspection) instead of racing them for the host.
import { describe, expect, it } from 'vitest';
import { inspectDataset } from '../../renderer/src/actions/datasets.ts';
import { startRun } from '../../renderer/src/actions/run.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { inspectResult, model, modelList, runSummary, tokenStats } from './data.ts';
import { testEnv } from './fake-service.ts';

describe('engine queue', () => {
  it('sends runs.start only after the inspection in flight has answered', async () => {
    const env = testEnv();
    env.store.getState().setModelList(ready(modelList([model()])));
    env.store.getState().selectModel('/models/tiny-llama.gguf');
    env.store.getState().setDatasetSources(['/data/a.jsonl']);
    const held = env.fake.hold('datasets.inspect');
    env.fake.answer('runs.start', runSummary({ status: 'starting' }));
    env.fake.answer('runs.events', []);
    const inspecting = inspectDataset(env);
    const starting = startRun(env);
    await new Promise((r) => setTimeout(r, 20));
    expect(env.fake.calls.map((c) => c.method)).toEqual(['datasets.inspect']);
    held.release(inspectResult(tokenStats()));
    await Promise.all([inspecting, starting]);
    expect(env.fake.calls.map((c) => c.method)).toEqual(['datasets.inspect', 'runs.start', 'runs.events']);
  });
});
