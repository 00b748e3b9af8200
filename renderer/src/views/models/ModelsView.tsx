/**
 * Models: the GGUF files found on this machine (LM Studio, Ollama, the Hugging Face cache, added
 * folders) described from their headers, with whether a LoRA can be trained on each and why not.
 * Choose one from the list, open one by path, or drop a .gguf (Electron gives its path).
 */
import { useMemo, useState, type DragEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ListedModel } from '../../../../electron/common/models.ts';
import { addModelFolder, loadModels, openModelPath } from '../../actions/models.ts';
import { pickModelFile } from '../../actions/shell.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { go } from '../../app/route.ts';
import { PathForm } from '../../components/fields.tsx';
import { Icon } from '../../components/icons.tsx';
import { Badge, Card, PageHeader } from '../../components/layout.tsx';
import { EmptyState, ErrorNotice, Loading, Notice } from '../../components/status.tsx';
import { VirtualTable, type Column } from '../../components/virtual-table.tsx';
import { formatBytes, formatCount, formatParams } from '../../lib/format.ts';
import { selectSelectedModel } from '../../store/selectors.ts';
import { ModelDetails } from './ModelDetails.tsx';

const SOURCE_LABEL: Record<ListedModel['source'], string> = { lmstudio: 'LM Studio', ollama: 'Ollama', huggingface: 'Hugging Face', folder: 'Folder' };

function trainableBadge(m: ListedModel) {
  if (m.error) return <Badge tone="bad" title={m.error.message}>unreadable</Badge>;
  if (m.trainable === true) return <Badge tone="ok">trainable</Badge>;
  if (m.trainable === false) return <Badge tone="warn" title={m.trainableReason}>not trainable</Badge>;
  return <Badge>unknown</Badge>;
}

const COLUMNS: Column<ListedModel>[] = [
  {
    key: 'name',
    header: 'Model',
    width: 'minmax(220px, 3fr)',
    render: (m) => (
      <span className="cell-stack">
        <span className="cell-main">{m.displayName}</span>
        {m.name && m.name !== m.displayName && <span className="cell-sub">{m.name}</span>}
      </span>
    ),
    title: (m) => m.path,
  },
  { key: 'arch', header: 'Architecture', width: 'minmax(124px, 1fr)', render: (m) => m.architecture ?? '–' },
  { key: 'params', header: 'Parameters', width: '100px', align: 'end', render: (m) => <span className="num">{formatParams(m.parameters)}</span> },
  { key: 'quant', header: 'Quantization', width: '110px', render: (m) => m.quantization?.fileType ?? m.quantization?.dominantType ?? '–' },
  { key: 'ctx', header: 'Context', width: '90px', align: 'end', render: (m) => <span className="num">{formatCount(m.contextLength)}</span> },
  { key: 'size', header: 'Size', width: '90px', align: 'end', render: (m) => <span className="num">{formatBytes(m.fileSize)}</span> },
  { key: 'source', header: 'Source', width: '110px', render: (m) => SOURCE_LABEL[m.source] },
  { key: 'trainable', header: 'Trainable', width: '120px', render: trainableBadge, title: (m) => m.error?.message ?? m.trainableReason },
];

export function ModelsView() {
  const env = useEnv();
  const list = useApp((s) => s.models.list);
  const pick = useApp((s) => s.models.pick);
  const selectedId = useApp((s) => s.models.selectedId);
  const selected = useApp(selectSelectedModel);
  const selectModel = useApp((s) => s.selectModel);
  const rows = useApp(
    useShallow((s) => {
      const picked = s.models.picked;
      return [...picked, ...(s.models.list.data?.models ?? []).filter((m) => !picked.some((p) => p.id === m.id))];
    }),
  );
  const [query, setQuery] = useState('');
  const [dropNote, setDropNote] = useState<string | null>(null);
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return q ? rows.filter((m) => `${m.displayName} ${m.architecture ?? ''} ${m.quantization?.fileType ?? ''}`.toLowerCase().includes(q)) : rows;
  }, [rows, query]);

  const onDrop = (e: DragEvent) => {
    const files = Array.from(e.dataTransfer.files).filter((f) => f.name.toLowerCase().endsWith('.gguf'));
    if (files.length === 0) return;
    e.preventDefault();
    if (env.files.kind === 'upload') {
      setDropNote(`${files[0].name}: a browser does not tell the server where a dropped file is. Type its path on the server below.`);
      return;
    }
    setDropNote(null);
    void env.files.toPaths(files.slice(0, 1)).then(([p]) => openModelPath(env, p));
  };

  return (
    <div className="view" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      <PageHeader
        title="Models"
        subtitle="GGUF models on this machine, read from their headers. Choose the base to train a LoRA on."
        actions={
          <button type="button" className="btn" onClick={() => void loadModels(env)} disabled={list.status === 'loading'}>
            <Icon name="refresh" /> Rescan
          </button>
        }
      />
      <Card title="Found on this machine" actions={<input className="input input-search" type="search" placeholder="Filter models" aria-label="Filter models" value={query} onChange={(e) => setQuery(e.currentTarget.value)} />}>
        {list.status === 'error' && <ErrorNotice error={list.error!} title="The model list could not be read" action={<button className="btn" onClick={() => void loadModels(env)}>Try again</button>} />}
        {list.status === 'loading' && !list.data && <Loading label="Looking for models…" />}
        {list.data && rows.length === 0 && (
          <EmptyState title="No models found" icon="models">
            Looked in {list.data.roots.map((r) => `${r.path}${r.exists ? '' : ' (absent)'}`).join(', ') || 'no folders'}. Open a .gguf by its path, or add the folder that holds your models.
          </EmptyState>
        )}
        {rows.length > 0 && (
          <VirtualTable
            rows={shown}
            columns={COLUMNS}
            rowKey={(m) => m.id}
            label="Models"
            selectedKey={selectedId}
            onSelect={(m) => selectModel(m.id)}
            rowClass={(m) => (m.error ? 'row-error' : m.trainable === false ? 'row-muted' : undefined)}
            maxHeight={340}
            empty="No model matches the filter"
          />
        )}
      </Card>
      <div className="grid-models">
        <Card title="Chosen model">
          {selected ? (
            <ModelDetails model={selected} onNext={() => go('datasets')} />
          ) : (
            <EmptyState title="No model chosen" icon="models">
              Pick one from the list (arrow keys and Enter work), open one by path, or drop a .gguf here.
            </EmptyState>
          )}
        </Card>
        <div className="stack">
          <Card title="Open or add">
            <div className="stack-tight">
              {env.shell && (
                <button type="button" className="btn" onClick={() => void pickModelFile(env)} disabled={pick.status === 'loading'}>
                  <Icon name="models" /> Choose a .gguf file…
                </button>
              )}
              <PathForm label="A .gguf file by path" button="Open" placeholder="/models/qwen3-4b-q4_k_m.gguf" busy={pick.status === 'loading'} onSubmit={(p) => void openModelPath(env, p)} testId="model-path" />
              <PathForm label="A folder to scan from now on" button="Add folder" placeholder="/models" busy={pick.status === 'loading'} onSubmit={(p) => void addModelFolder(env, p)} testId="model-folder" />
              {env.files.kind === 'upload' && <p className="field-hint">Paths are on the machine running Hone.</p>}
              {pick.status === 'loading' && <Loading label="Reading the file's header…" />}
              {pick.status === 'error' && <ErrorNotice error={pick.error!} title="Could not open that" />}
              {dropNote && (
                <Notice kind="info" title="Dropped a model">
                  {dropNote}
                </Notice>
              )}
            </div>
          </Card>
          {list.data && (list.data.warnings.length > 0 || list.data.roots.length > 0) && (
            <Card title="Where Hone looked">
              <ul className="roots">
                {list.data.roots.map((r) => (
                  <li key={`${r.source}:${r.path}`}>
                    <span className="mono path-text">{r.path}</span>
                    <span className="muted nowrap">
                      {SOURCE_LABEL[r.source]} · {r.exists ? `${r.found} found` : 'not present'}
                    </span>
                  </li>
                ))}
              </ul>
              {list.data.warnings.map((w, i) => (
                <Notice key={i} kind="warning" title="Skipped part of the scan">
                  {w}
                </Notice>
              ))}
            </Card>
          )}
        </div>
      </div>
    </div>
  );
}
