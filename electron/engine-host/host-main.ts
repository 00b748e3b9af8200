/**
 * The engine host process: the only process that loads the addon. It answers typed requests
 * from its parent (`{id, kind, payload}`) with streamed events and one reply each, one job at
 * a time. Run as a Node child process (fork) or, in the app, an Electron utilityProcess.
 */
import type { HostMessage, RequestMessage, Requests } from '../common/engine-api.ts';
import { HoneError, toPlain } from '../common/errors.ts';
import { loadAddon, type HoneAddon } from './binding.ts';
import { readCapabilities } from './capabilities.ts';
import { ChatModelCache, chatJob } from './chat.ts';
import { inspectJob, RunControl, trainJob } from './jobs.ts';
import { mergeJob } from './merge.ts';
import { parentPort } from './parent-port.ts';
import { PlanModelCache, planJob } from './plan.ts';

const found = parentPort();
if (!found) {
  console.error('the engine host must be started by its parent (child_process.fork or an Electron utilityProcess)');
  process.exit(2);
}
const port = found;

let addon: HoneAddon | null = null;
let busy: { id: number; control: RunControl } | null = null;
const planModels = new PlanModelCache();
const chatModels = new ChatModelCache();

async function handle(msg: RequestMessage) {
  const reply = (m: HostMessage) => port.send(m);
  if (msg.kind === 'stop' || msg.kind === 'cancel') {
    busy?.control.request(msg.kind);
    reply({ id: msg.id, ok: true, result: { stopping: busy !== null } });
    return;
  }
  if (msg.kind === 'retry-checkpoint' || msg.kind === 'discard') {
    const acted = busy?.control.decide(msg.kind === 'retry-checkpoint' ? 'retry' : 'discard') ?? false;
    reply({ id: msg.id, ok: true, result: msg.kind === 'retry-checkpoint' ? { retrying: acted } : { discarding: acted } });
    return;
  }
  if (msg.kind === 'capabilities') {
    // cheap and read-only: answered while a job runs too
    try {
      addon ??= loadAddon();
      reply({ id: msg.id, ok: true, result: readCapabilities(addon) });
    } catch (e) {
      reply({ id: msg.id, ok: false, error: toPlain(e) });
    }
    return;
  }
  if (busy) {
    reply({ id: msg.id, ok: false, error: toPlain(new HoneError('busy', `the engine host is running request ${busy.id}`)) });
    return;
  }
  const control = new RunControl();
  busy = { id: msg.id, control };
  const emit = (event: Parameters<typeof inspectJob>[2] extends (e: infer E) => void ? E : never) => reply({ id: msg.id, event });
  try {
    addon ??= loadAddon();
    let result: unknown;
    if (msg.kind === 'plan') result = await planJob(addon, (msg.payload as Requests['plan']['payload']).config, planModels);
    else if (msg.kind === 'inspect') result = await inspectJob(addon, msg.payload as never, emit);
    else if (msg.kind === 'train') {
      planModels.drop(); // the run loads its own model: never two copies resident
      chatModels.drop();
      result = await trainJob(addon, msg.payload as never, emit, control);
    }
    else if (msg.kind === 'merge') result = await mergeJob(addon, msg.payload as Requests['merge']['payload'], emit, control);
    else if (msg.kind === 'chat') result = await chatJob(addon, msg.payload as Requests['chat']['payload'], emit, control, chatModels);
    else throw new HoneError('unknown_request', `unknown request '${String(msg.kind)}'`);
    reply({ id: msg.id, ok: true, result });
  } catch (e) {
    reply({ id: msg.id, ok: false, error: toPlain(e) });
  } finally {
    busy = null;
  }
}

port.onMessage((m) => void handle(m));
// Ctrl-C in a terminal reaches the whole process group: the parent decides (stop, then cancel).
process.on('SIGINT', () => {});
// The parent going away ends the host.
port.onParentGone(() => process.exit(0));
