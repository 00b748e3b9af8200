/**
 * Where data files go: drop files or folders, or pick them. Folders are walked (their data files
 * only, hidden files skipped, as the importer does); a drop's entries must be read during the
 * drop event itself, the files after.
 */
import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { Icon } from './icons.tsx';

export const DATA_EXTENSIONS = ['.jsonl', '.json', '.csv', '.tsv', '.txt', '.md'];

export function isDataFile(name: string): boolean {
  const n = name.toLowerCase();
  return !n.startsWith('.') && DATA_EXTENSIONS.some((e) => n.endsWith(e));
}

interface Entry {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
  file?(ok: (f: File) => void, fail: (e: unknown) => void): void;
  createReader?(): { readEntries(ok: (entries: Entry[]) => void, fail: (e: unknown) => void): void };
}

async function walk(entry: Entry, out: File[]): Promise<void> {
  if (entry.name.startsWith('.')) return;
  if (entry.isFile && entry.file) {
    if (isDataFile(entry.name)) out.push(await new Promise<File>((ok, fail) => entry.file!(ok, fail)));
    return;
  }
  if (entry.isDirectory && entry.createReader) {
    const reader = entry.createReader();
    // readEntries answers in batches until an empty one
    for (;;) {
      const batch = await new Promise<Entry[]>((ok, fail) => reader.readEntries(ok, fail));
      if (batch.length === 0) break;
      for (const e of batch) await walk(e, out);
    }
  }
}

/** The files of a drop, folders expanded. Call during the drop event (items expire after it). */
export function filesOfDrop(dt: DataTransfer): Promise<File[]> {
  const entries: Entry[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    const e = item.kind === 'file' ? (item.webkitGetAsEntry?.() as Entry | null) : null;
    if (e) entries.push(e);
  }
  const files = Array.from(dt.files ?? []);
  if (!entries.some((e) => e.isDirectory)) return Promise.resolve(files);
  return (async () => {
    const out: File[] = [];
    for (const e of entries) await walk(e, out);
    return out;
  })();
}

export function DropZone({ onFiles, busy, children }: { onFiles(files: File[]): void; busy?: boolean; children?: ReactNode }) {
  const [over, setOver] = useState(false);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setOver(false);
    void filesOfDrop(e.dataTransfer).then((files) => onFiles(files));
  };
  const picked = (input: HTMLInputElement | null, folder: boolean) => {
    const files = Array.from(input?.files ?? []);
    if (input) input.value = '';
    onFiles(folder ? files.filter((f) => isDataFile(f.name)) : files);
  };

  return (
    <div
      className={`dropzone ${over ? 'dropzone-over' : ''} ${busy ? 'dropzone-busy' : ''}`}
      data-testid="dataset-drop-zone"
      onDragEnter={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={onDrop}
    >
      <span className="dropzone-icon" aria-hidden="true">
        <Icon name="upload" size={26} />
      </span>
      <p className="dropzone-title">Drop data files or folders here</p>
      <p className="dropzone-hint">Chat (OpenAI messages, ShareGPT), Alpaca, prompt/completion, text, CSV: {DATA_EXTENSIONS.join(' ')}</p>
      <div className="dropzone-actions">
        <button type="button" className="btn" onClick={() => filesInput.current?.click()} disabled={busy}>
          <Icon name="file" /> Choose files…
        </button>
        <button type="button" className="btn" onClick={() => folderInput.current?.click()} disabled={busy}>
          <Icon name="folder" /> Choose a folder…
        </button>
      </div>
      {children}
      <input ref={filesInput} type="file" multiple accept={DATA_EXTENSIONS.join(',')} hidden aria-label="Data files" onChange={(e) => picked(e.currentTarget, false)} />
      <input
        ref={(el) => {
          folderInput.current = el;
          // not in React's attribute list: set it on the element
          el?.setAttribute('webkitdirectory', '');
        }}
        type="file"
        multiple
        hidden
        aria-label="Data folder"
        onChange={(e) => picked(e.currentTarget, true)}
      />
    </div>
  );
}
