// The engine host over the utilityProcess transport (electron/main/utility-port.ts), with the
// real host and engine: a stand-in utility process (a child process whose host side speaks
// through process.parentPort, as in Electron) trains, streams events, and when it is killed
// mid-run every pending request gets host-exited with the last checkpoint: the window's state.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EngineEvent, TrainConfig } from '../../electron/common/engine-api.ts';
import { startUtilityHost, type UtilityProcessLike } from '../../electron/main/utility-port.ts';
import { hostExecArgv } from '../../electron/services/engine/client.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { repoRoot, tempDir } from '../helpers/native.ts';

/** Electron's UtilityProcess surface over a Node child process: postMessage, kill, message and exit events. */
function childAsUtility(child: ChildProcess): UtilityProcessLike {
  const proc = {
    get pid() {
      return child.pid;
    },
    postMessage: (m: unknown) => void child.send(m as object),
    kill: () => child.kill('SIGKILL'),
    on(event: 'message' | 'exit', listener: (v: unknown) => void) {
      if (event === 'message') child.on('message', listener);
      else child.on('exit', (code) => (listener as (c: number) => void)(code ?? -1));
      return proc;
    },
  };
  return proc as unknown as UtilityProcessLike;
}

const TEXT = 'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. One day, Max saw a big cat under a tree.';

test('the host as a utility process trains, streams events, and a crash reaches every pending request', async (t) => {
  const path = requireFixture(t, 'stories260K.gguf');
  if (!path) return;
  const dir = tempDir();
  const data = join(dir, 'text.jsonl');
  writeFileSync(data, TEXT.split('. ').map((s) => JSON.stringify({ text: s + '.' })).join('\n') + '\n');
  const entry = join(repoRoot, 'test', 'helpers', 'utility-child.ts');
  const forks: Array<{ modulePath: string; options: unknown }> = [];
  const utility = {
    fork: (modulePath: string, _args?: string[], options?: { env?: NodeJS.ProcessEnv }) => {
      forks.push({ modulePath, options });
      return childAsUtility(fork(modulePath, [], { execArgv: hostExecArgv(), env: options?.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    },
  };
  const host = startUtilityHost(utility, entry, { ...process.env });
  t.after(() => host.kill());
  assert.equal(forks[0].modulePath, entry);
  assert.equal((forks[0].options as { serviceName: string }).serviceName, 'Hone engine');

  const { defaults, backends } = await host.request('capabilities', {});
  assert.ok(backends.some((b) => b.name === 'CPU'));
  const config: TrainConfig = { ...defaults, model: path, data: [data], out: join(dir, 'run'), steps: 40, ctx: 32, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 2, checkpointEvery: 2, keepCheckpoints: 0 };
  const seen: EngineEvent[] = [];
  let killedAt = 0;
  const run = host.request('train', { config, resume: null }, (e) => {
    seen.push(e);
    if (e.type === 'checkpoint' && e.step >= 4 && !killedAt) {
      killedAt = e.step;
      // the crash of a ggml abort, as the utility process would see it
      host.kill();
    }
  });
  await assert.rejects(run, (e: { code: string; detail: { lastCheckpoint: string } }) => e.code === 'host_exited' && existsSync(join(e.detail.lastCheckpoint, 'state.json')));
  const steps = seen.filter((e) => e.type === 'step');
  assert.ok(steps.length >= 4, `steps streamed before the crash (${steps.length})`);
  const exited = seen.find((e) => e.type === 'host-exited') as Extract<EngineEvent, { type: 'host-exited' }>;
  assert.ok(exited, 'the pending request got host-exited');
  assert.match(exited.reason, /exited with code/);
  assert.equal(exited.lastCheckpoint, join(dir, 'run', 'checkpoints', String(killedAt)));
  assert.equal(host.alive, false);
  await assert.rejects(host.request('capabilities', {}), (e: { code: string }) => e.code === 'host_exited');
});
