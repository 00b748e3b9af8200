// exports.create's argument as every transport checks it: a run or an adapter with its model,
// a known format, type only for merged, storage only for gguf, out a path (required without a run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { defaultExportName, EXPORT_FORMATS } from '../../electron/common/export.ts';
import { SERVICE_METHODS } from '../../electron/common/service.ts';
import { validateCall } from '../../electron/common/validate.ts';

const call = (request: unknown) => validateCall('exports.create', [request]);
const refused = (request: unknown, pattern: RegExp) =>
  assert.throws(() => call(request), (e: HoneError) => e.code === 'invalid_argument' && pattern.test(e.message), JSON.stringify(request));

test('exports.create is a service method taking one export request', () => {
  assert.deepEqual(SERVICE_METHODS['exports.create'], ['export']);
  assert.throws(() => validateCall('exports.create', [{ run: 'r1', format: 'gguf' }, 2]), /takes at most 1/);
});

test('a run (id or folder path) or an adapter with its model, in every format, passes', () => {
  for (const format of EXPORT_FORMATS) {
    assert.doesNotThrow(() => call({ run: '20261201-142233-ab12', format }));
    assert.doesNotThrow(() => call({ run: '/home/me/runs/first', format, out: '/tmp/x' }));
    if (format !== 'axolotl') assert.doesNotThrow(() => call({ adapter: '/a/adapter.gguf', model: '/m/base.gguf', format, out: '/tmp/out' }));
  }
  assert.doesNotThrow(() => call({ run: 'r1', format: 'merged', type: 'q4_k_m' }));
  assert.doesNotThrow(() => call({ run: 'r1', format: 'gguf', storage: 'q8_0' }));
  assert.doesNotThrow(() => call({ run: 'r1', format: 'gguf', storage: undefined }), 'an undefined key is absent');
});

test('run xor adapter+model', () => {
  refused({ format: 'gguf' }, /must give a run, or an adapter with its model/);
  refused({ run: 'r1', adapter: '/a.gguf', model: '/m.gguf', format: 'gguf' }, /both a run and adapter/);
  refused({ run: 'r1', model: '/m.gguf', format: 'gguf' }, /both a run and adapter/);
  refused({ adapter: '/a.gguf', format: 'gguf', out: '/o' }, /request\.model.*non-empty path/);
  refused({ model: '/m.gguf', format: 'gguf', out: '/o' }, /request\.adapter.*non-empty path/);
  refused({ adapter: '/a.gguf', model: '/m.gguf', format: 'gguf' }, /request\.out.*required/);
  refused({ adapter: '/a.gguf', model: '/m.gguf', format: 'axolotl', out: '/o' }, /needs a run, not an adapter file/);
});

test('a run is a run id or a path, nothing that climbs out of the runs folder', () => {
  refused({ run: '..', format: 'gguf' }, /request\.run/);
  refused({ run: 'a..b', format: 'gguf' }, /not a run id/);
  refused({ run: '', format: 'gguf' }, /request\.run/);
  refused({ run: 42, format: 'gguf' }, /request\.run/);
  refused({ run: '/runs/x\0y', format: 'gguf' }, /not a valid path/);
});

test('format, type and storage: known values, each only where it means something', () => {
  refused({ run: 'r1' }, /request\.format.*one of gguf, peft, merged, ollama, axolotl/);
  refused({ run: 'r1', format: 'onnx' }, /request\.format/);
  refused({ run: 'r1', format: 'merged', type: 'q3_k' }, /request\.type.*one of q4_k_m, q5_k_m, q8_0, f16/);
  refused({ run: 'r1', format: 'gguf', type: 'q8_0' }, /type.*only for the merged format/);
  refused({ run: 'r1', format: 'ollama', type: 'f16' }, /only for the merged format/);
  refused({ run: 'r1', format: 'gguf', storage: 'q4_0' }, /request\.storage.*one of f32, f16, q8_0/);
  refused({ run: 'r1', format: 'peft', storage: 'f16' }, /storage.*only for the gguf format/);
  refused({ run: 'r1', format: 'gguf', out: '' }, /request\.out.*non-empty path/);
  refused({ run: 'r1', format: 'gguf', name: 'x' }, /request\.name.*is not known/);
  refused(null, /must be an object/);
  refused(['r1'], /must be an object/);
});

test('the default folder name says the variant', () => {
  assert.equal(defaultExportName({ format: 'peft' }), 'peft');
  assert.equal(defaultExportName({ format: 'merged', type: 'q4_k_m' }), 'merged-q4_k_m');
  assert.equal(defaultExportName({ format: 'merged' }), 'merged');
  assert.equal(defaultExportName({ format: 'gguf', storage: 'f16' }), 'gguf-f16');
});
