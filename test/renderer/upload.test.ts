// Dropped files in a browser: each uploaded to /upload, then imported by the path the server answers.
import { describe, expect, it } from 'vitest';
import { importFiles } from '../../renderer/src/actions/datasets.ts';
import { pathImporter, uploadFile, uploadImporter, type FetchLike } from '../../renderer/src/service/upload.ts';
import { datasetImport, fileReport } from './data.ts';
import { testEnv } from './fake-service.ts';

function fakeFetch(answer: (url: string, body: Blob) => { status: number; body: unknown }) {
  const seen: Array<{ url: string; method: string; size: number; credentials: string }> = [];
  const fetchImpl: FetchLike = async (url, init) => {
    seen.push({ url, method: init.method, size: init.body.size, credentials: init.credentials });
    const a = answer(url, init.body);
    return { ok: a.status < 300, status: a.status, json: async () => a.body };
  };
  return { fetchImpl, seen };
}

describe('upload', () => {
  it('posts the bytes under an encoded name and returns the server’s path', async () => {
    const { fetchImpl, seen } = fakeFetch((url) => ({ status: 200, body: { path: `/data/uploads/${decodeURIComponent(url.split('name=')[1])}`, bytes: 11 } }));
    const r = await uploadFile(new File(['hello world'], 'my chats&more.jsonl'), fetchImpl);
    expect(r).toEqual({ path: '/data/uploads/my chats&more.jsonl', bytes: 11 });
    expect(seen).toEqual([{ url: '/upload?name=my%20chats%26more.jsonl', method: 'POST', size: 11, credentials: 'same-origin' }]);
  });

  it('names the file and the server’s reason when refused', async () => {
    const { fetchImpl } = fakeFetch(() => ({ status: 413, body: { error: { code: 'invalid_argument', message: 'the upload is larger than 2 GiB' } } }));
    await expect(uploadFile(new File(['x'], 'big.jsonl'), fetchImpl)).rejects.toMatchObject({
      code: 'invalid_argument',
      message: 'uploading big.jsonl failed: the upload is larger than 2 GiB',
      detail: { file: 'big.jsonl', status: 413 },
    });
    const plain = fakeFetch(() => ({ status: 507, body: null }));
    await expect(uploadFile(new File(['x'], 'a.csv'), plain.fetchImpl)).rejects.toMatchObject({ code: 'io_error', message: 'uploading a.csv failed: HTTP 507' });
  });

  it('uploads one file after the other, reporting progress', async () => {
    const { fetchImpl } = fakeFetch((url) => ({ status: 200, body: { path: `/u/${url.split('=')[1]}`, bytes: 1 } }));
    const progress: string[] = [];
    const paths = await uploadImporter(fetchImpl).toPaths([new File(['a'], 'a.txt'), new File(['b'], 'b.txt')], (d, t) => progress.push(`${d}/${t}`));
    expect(paths).toEqual(['/u/a.txt', '/u/b.txt']);
    expect(progress).toEqual(['0/2', '1/2', '2/2']);
  });

  it('in Electron, takes the files’ own paths and refuses a file without one', async () => {
    const importer = pathImporter((f) => (f.name === 'ok.jsonl' ? '/home/me/ok.jsonl' : ''));
    await expect(importer.toPaths([new File([''], 'ok.jsonl')])).resolves.toEqual(['/home/me/ok.jsonl']);
    await expect(importer.toPaths([new File([''], 'x.jsonl')])).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('importFiles', () => {
  it('adds the dropped files’ paths to the sources and imports them all together', async () => {
    const env = testEnv();
    env.fake.answer('datasets.import', (paths: unknown) => datasetImport((paths as string[]).map((p) => fileReport(p, { total: 3 }))));
    await importFiles(env, [new File(['{}'], 'a.jsonl')]);
    await importFiles(env, [new File(['{}'], 'b.jsonl'), new File(['{}'], 'a.jsonl')]);
    expect(env.fake.callsOf('datasets.import')).toEqual([[['/data/uploads/a.jsonl']], [['/data/uploads/a.jsonl', '/data/uploads/b.jsonl']]]);
    expect(env.store.getState().datasets.report.data?.report.records.total).toBe(6);
    expect(env.store.getState().datasets.upload).toBeNull();
  });
});
