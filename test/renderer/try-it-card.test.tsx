// Trying a finished run's adapter: one prompt to the base and to the base with the adapter
// (chat.generate with compare), both replies streaming side by side; the scale slider and greedy
// or sampled replies go into the request; Stop stops that chat; errors and busy are shown.
import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResult } from '../../electron/common/chat.ts';
import { TryItCard } from '../../renderer/src/views/runs/TryItCard.tsx';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

function result(chatId: string, over: Partial<ChatResult> = {}): ChatResult {
  return {
    chatId,
    model: '/models/stories.gguf',
    adapter: '/data/runs/run-a/adapter.gguf',
    template: 'model',
    backend: 'CPU',
    replies: [
      { which: 'base', scale: 0, text: 'One day, Anna', promptTokens: 35, replyTokens: 5, stop: 'max_tokens' },
      { which: 'adapter', scale: 1, text: 'Once upon a time, a purple zebra', promptTokens: 35, replyTokens: 9, stop: 'eos' },
    ],
    notes: [],
    ...over,
  };
}

function type(text: string) {
  fireEvent.change(screen.getByLabelText('Prompt'), { target: { value: text } });
}

describe('TryItCard', () => {
  it('sends the prompt to the base and the adapter of the run and streams both replies side by side', async () => {
    const env = testEnv();
    const held = env.fake.hold('chat.generate');
    renderWith(env, <TryItCard runId="run-a" />);
    expect(screen.getByTestId('try-send').hasAttribute('disabled')).toBe(true);
    type('Tell me a story');
    await act(async () => fireEvent.click(screen.getByTestId('try-send')));
    const [request] = env.fake.callsOf('chat.generate')[0] as [ChatRequest];
    expect(request).toMatchObject({ run: 'run-a', compare: true, scale: 1, messages: [{ role: 'user', content: 'Tell me a story' }], sampling: { greedy: true } });
    const chatId = request.chatId!;
    expect(chatId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    expect(screen.getByTestId('try-send').hasAttribute('disabled')).toBe(true);

    await act(async () => {
      env.fake.emit({ type: 'chat-token', chatId, which: 'base', text: 'One day,' });
      env.fake.emit({ type: 'chat-token', chatId: 'another-chat', which: 'base', text: ' not ours' });
      env.fake.emit({ type: 'chat-token', chatId, which: 'base', text: ' Anna' });
      env.fake.emit({ type: 'chat-token', chatId, which: 'adapter', text: 'Once upon a time,' });
    });
    expect(screen.getByTestId('try-base').textContent).toBe('One day, Anna');
    expect(screen.getByTestId('try-adapter').textContent).toBe('Once upon a time,');
    expect(screen.getByRole('heading', { name: 'With this adapter (scale 1.0)' })).toBeTruthy();

    await act(async () => held.release(result(chatId)));
    await settle();
    expect(screen.getByTestId('try-adapter').textContent).toBe('Once upon a time, a purple zebra');
    expect(screen.getByText(/9 tokens · the model ended its reply/)).toBeTruthy();
    expect(screen.getByText('5 tokens · the token limit')).toBeTruthy();
    expect(screen.getByTestId('try-send').hasAttribute('disabled')).toBe(false);
    expect(screen.getByTestId('try-stop').hasAttribute('disabled')).toBe(true);
  });

  it('asks with the scale of the slider, and sampled with the temperature given; Ctrl+Enter sends', async () => {
    const env = testEnv();
    env.fake.answer('chat.generate', (r: ChatRequest) => result(r.chatId!));
    renderWith(env, <TryItCard runId="run-a" />);
    const slider = screen.getByRole('slider', { name: /Adapter scale/ });
    expect(slider.getAttribute('min')).toBe('0');
    expect(slider.getAttribute('max')).toBe('2');
    expect(slider.getAttribute('step')).toBe('0.1');
    fireEvent.change(slider, { target: { value: '0.5' } });
    expect(slider.getAttribute('aria-valuetext')).toBe('0.5');
    fireEvent.click(screen.getByRole('radio', { name: 'Sampled' }));
    expect(screen.getByRole('radio', { name: 'Sampled' }).getAttribute('aria-checked')).toBe('true');
    fireEvent.change(screen.getByLabelText('Temperature'), { target: { value: '1.2' } });
    type('Tell me a story');
    await act(async () => fireEvent.keyDown(screen.getByLabelText('Prompt'), { key: 'Enter', ctrlKey: true }));
    await settle();
    const [request] = env.fake.callsOf('chat.generate')[0] as [ChatRequest];
    expect(request).toMatchObject({ scale: 0.5, sampling: { greedy: false, temperature: 1.2, maxTokens: 256 } });
    expect(screen.getByRole('heading', { name: 'With this adapter (scale 0.5)' })).toBeTruthy();
    // a plain Enter is a new line, not a send
    fireEvent.keyDown(screen.getByLabelText('Prompt'), { key: 'Enter' });
    expect(env.fake.callsOf('chat.generate')).toHaveLength(1);
  });

  it('Stop stops this chat: the base reply keeps its text, the adapter reply is said not to have run', async () => {
    const env = testEnv();
    const held = env.fake.hold('chat.generate');
    env.fake.answer('chat.stop', { stopping: true });
    renderWith(env, <TryItCard runId="run-a" />);
    type('Tell me a story');
    await act(async () => fireEvent.click(screen.getByTestId('try-send')));
    const chatId = (env.fake.callsOf('chat.generate')[0] as [ChatRequest])[0].chatId!;
    await act(async () => env.fake.emit({ type: 'chat-token', chatId, which: 'base', text: 'One day' }));
    await act(async () => fireEvent.click(screen.getByTestId('try-stop')));
    expect(env.fake.callsOf('chat.stop')).toEqual([[chatId]]);
    expect(screen.getByTestId('try-stop').textContent).toBe('Stopping…');
    await act(async () => held.release(result(chatId, { replies: [{ which: 'base', scale: 0, text: 'One day', promptTokens: 35, replyTokens: 2, stop: 'stopped' }] })));
    await settle();
    expect(screen.getByTestId('try-base').textContent).toBe('One day');
    expect(screen.getByText(/2 tokens · stopped/)).toBeTruthy();
    expect(screen.getByText('Not generated: stopped before it began')).toBeTruthy();
  });

  it('shows why a reply failed, keeping what streamed; a busy engine is a wait', async () => {
    const env = testEnv();
    env.fake.fail('chat.generate', 'adapter_mismatch', 'adapter.gguf: the adapter does not load for this model: tensor blk.0.attn_q has incorrect shape');
    renderWith(env, <TryItCard runId="run-a" />);
    type('Tell me a story');
    await act(async () => fireEvent.click(screen.getByTestId('try-send')));
    await settle();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('incorrect shape');
    expect(alert.textContent).toContain('adapter_mismatch');

    env.fake.fail('chat.generate', 'busy', 'run run-b is running: one training job at a time');
    await act(async () => fireEvent.click(screen.getByTestId('try-send')));
    await settle();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByText('The engine is busy training')).toBeTruthy();
  });
});
