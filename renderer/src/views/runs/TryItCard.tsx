/**
 * Try a finished run's adapter: one prompt answered by the base and by the base with this
 * adapter, side by side as they stream (the base first, on one loaded model). The adapter's scale
 * (0–2) and greedy or sampled replies are chosen here; Stop ends the reply in progress.
 */
import { useId, useState } from 'react';
import type { ChatReply, ChatResult, ChatWhich } from '../../../../electron/common/chat.ts';
import { toPlain, type PlainError } from '../../../../electron/common/errors.ts';
import { generateChat, newChatId, stopChat } from '../../actions/chat.ts';
import { useEnv } from '../../app/context.tsx';
import { NumberField } from '../../components/fields.tsx';
import { Card } from '../../components/layout.tsx';
import { BusyOrError, Notice } from '../../components/status.tsx';
import { formatCount } from '../../lib/format.ts';

const MAX_TOKENS = 256;

type Texts = Record<ChatWhich, string>;
type State =
  | { status: 'idle' }
  | { status: 'running'; chatId: string; scale: number; texts: Texts; stopping: boolean }
  | { status: 'done'; scale: number; texts: Texts; result: ChatResult }
  | { status: 'error'; scale: number; texts: Texts; error: PlainError };

const STOPS: Record<ChatReply['stop'], string> = {
  eos: 'the model ended its reply',
  max_tokens: 'the token limit',
  context: 'the context is full',
  stopped: 'stopped',
};

export function TryItCard({ runId }: { runId: string }) {
  const env = useEnv();
  const promptId = useId();
  const [prompt, setPrompt] = useState('');
  const [scale, setScale] = useState(1);
  const [sampled, setSampled] = useState(false);
  const [temperature, setTemperature] = useState(0.8);
  const [state, setState] = useState<State>({ status: 'idle' });
  const running = state.status === 'running';

  const send = () => {
    const content = prompt.trim();
    if (!content || running) return;
    const chatId = newChatId();
    const texts: Texts = { base: '', adapter: '' };
    setState({ status: 'running', chatId, scale, texts, stopping: false });
    const add = (which: ChatWhich, text: string) =>
      setState((s) => (s.status === 'running' && s.chatId === chatId ? { ...s, texts: { ...s.texts, [which]: s.texts[which] + text } } : s));
    generateChat(
      env,
      { chatId, run: runId, messages: [{ role: 'user', content }], compare: true, scale, sampling: sampled ? { greedy: false, temperature, maxTokens: MAX_TOKENS } : { greedy: true, maxTokens: MAX_TOKENS } },
      (t) => add(t.which, t.text),
    ).then(
      (result) => setState({ status: 'done', scale, texts: Object.fromEntries(result.replies.map((r) => [r.which, r.text])) as Texts, result }),
      (e) => setState((s) => ({ status: 'error', scale, texts: s.status === 'running' ? s.texts : texts, error: toPlain(e) })),
    );
  };
  const stop = () => {
    if (state.status !== 'running') return;
    setState({ ...state, stopping: true });
    void stopChat(env, state.chatId).catch(() => {});
  };

  const shown = state.status === 'idle' ? null : state;
  const replies = state.status === 'done' ? state.result.replies : [];
  return (
    <Card title="Try it" className="card-try">
      <form
        className="try-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <label className="field-label" htmlFor={promptId}>
          Prompt
        </label>
        <textarea
          id={promptId}
          className="input try-prompt"
          rows={3}
          value={prompt}
          placeholder="Ask what this adapter was trained for"
          aria-describedby={`${promptId}-hint`}
          data-testid="try-prompt"
          onChange={(e) => setPrompt(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              send();
            }
          }}
        />
        <p className="field-hint" id={`${promptId}-hint`}>
          The same prompt goes to the base and to the base with this adapter, through the model's chat template. Ctrl+Enter sends.
        </p>
        <div className="try-controls">
          <label className="range">
            <span>Adapter scale</span>
            <input
              type="range"
              min={0}
              max={2}
              step={0.1}
              value={scale}
              disabled={running}
              aria-valuetext={scale.toFixed(1)}
              data-testid="try-scale"
              onChange={(e) => setScale(Math.round(Number(e.currentTarget.value) * 10) / 10)}
            />
            <span className="num range-value">{scale.toFixed(1)}</span>
          </label>
          <div className="segmented" role="radiogroup" aria-label="Reply">
            <button type="button" role="radio" aria-checked={!sampled} className={!sampled ? 'on' : ''} disabled={running} onClick={() => setSampled(false)}>
              Greedy
            </button>
            <button type="button" role="radio" aria-checked={sampled} className={sampled ? 'on' : ''} disabled={running} onClick={() => setSampled(true)}>
              Sampled
            </button>
          </div>
          {sampled && (
            <div className="try-temperature">
              <NumberField label="Temperature" value={temperature} onChange={setTemperature} min={0.05} max={5} step={0.05} disabled={running} testId="try-temperature" />
            </div>
          )}
        </div>
        <div className="row-gap">
          <button type="submit" className="btn btn-primary" disabled={running || !prompt.trim()} data-testid="try-send">
            Send
          </button>
          <button type="button" className="btn" disabled={!running || state.stopping} onClick={stop} data-testid="try-stop">
            {running && state.stopping ? 'Stopping…' : 'Stop'}
          </button>
        </div>
      </form>
      {shown && (
        <div className="try-columns" aria-busy={running}>
          <ReplyColumn title="Base" text={shown.texts.base} reply={replies.find((r) => r.which === 'base')} skipped={state.status === 'done'} testId="try-base" />
          <ReplyColumn title={`With this adapter (scale ${shown.scale.toFixed(1)})`} text={shown.texts.adapter} reply={replies.find((r) => r.which === 'adapter')} skipped={state.status === 'done'} testId="try-adapter" />
        </div>
      )}
      {state.status === 'error' && <BusyOrError error={state.error} title="The reply failed" waiting="A run is training: try the adapter once it has finished or been paused." />}
      {state.status === 'done' &&
        state.result.notes.map((n) => (
          <Notice key={n} kind="info" title="Note">
            {n}
          </Notice>
        ))}
    </Card>
  );
}

/** `skipped`: the chat is over, so a column without its reply was never generated (a stop came first). */
function ReplyColumn({ title, text, reply, skipped, testId }: { title: string; text: string; reply: ChatReply | undefined; skipped: boolean; testId: string }) {
  const headingId = useId();
  return (
    <section className="try-reply" aria-labelledby={headingId}>
      <h3 className="field-label" id={headingId}>
        {title}
      </h3>
      <pre className="try-text" aria-live="polite" data-testid={testId}>
        {text}
      </pre>
      {reply ? (
        <p className="muted small">
          {formatCount(reply.replyTokens)} tokens · {STOPS[reply.stop]}
        </p>
      ) : (
        skipped && <p className="muted small">Not generated: stopped before it began</p>
      )}
    </section>
  );
}
