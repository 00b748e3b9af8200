/**
 * A chat template is user input (the Settings view's override, --chat-template-file): one that
 * would overflow the Jinja engine's stack (brackets or blocks nested thousands deep, a macro
 * calling itself without end) or loop without end is refused with where and why,
 * instead of killing or hanging the process; an ordinary template still renders.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fixturePath, requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';

describe('chat template limits', () => {
  const dir = tempDir();
  const render = (model: string, template: string) => {
    const file = join(dir, `t${Math.random().toString(36).slice(2)}.jinja`);
    writeFileSync(file, template);
    return honeTrain(['render', '--model', model, '--data', fixturePath('chat_elements_limericks.jsonl'), '--chat-template-file', file], 60_000);
  };

  test('brackets nested 200,000 deep are refused, not a stack overflow', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const r = render(model, `{{ ${'('.repeat(200_000)}1${')'.repeat(200_000)} }}`);
    assert.notEqual(r.code, null, `died of a signal: ${r.stderr}`);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr + r.stdout, /nests brackets more than 128 deep \(line 1\)/);
  });

  test('blocks nested past the bound and a loop of 10^8 are refused, naming the line', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const blocks = render(model, `{% for m in messages %}\n${'{% if true %}'.repeat(200)}x${'{% endif %}'.repeat(200)}{% endfor %}`);
    assert.notEqual(blocks.code, null, `died of a signal: ${blocks.stderr}`);
    assert.match(blocks.stderr + blocks.stdout, /nests blocks more than 128 deep \(line 2\)/);
    const loop = render(model, '{% for m in messages %}{{ m.content }}{% endfor %}\n{% for i in range(100000000) %}x{% endfor %}');
    assert.notEqual(loop.code, null, `died of a signal: ${loop.stderr}`);
    assert.match(loop.stderr + loop.stdout, /loops 100000000 times \(range\(100000000\), line 2\): at most 100000/);
  });

  test('a macro calling itself without end is refused; one that recurses to a base case renders', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const endless = render(model, '{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}{% for m in messages %}{{ m.content }}{% endfor %}');
    assert.notEqual(endless.code, null, `died of a signal: ${endless.stderr}`);
    assert.match(endless.stderr + endless.stdout, /macro 'f': calls nest more than 256 deep/);
    const bounded = render(model, '{% macro f(n) %}{% if n > 0 %}.{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(5) }}{% for m in messages %}{{ m.content }}{% endfor %}');
    assert.equal(bounded.code, 0, bounded.stderr);
  });

  test('an ordinary template nested a few levels still renders', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const r = render(model, '{% for m in messages %}{% if m.role == "user" %}<u>{{ (m.content | trim) }}</u>{% else %}<a>{{ m.content }}</a>{% endif %}{% endfor %}{% for i in range(3) %}{% endfor %}');
    assert.equal(r.code, 0, r.stderr);
  });
});
