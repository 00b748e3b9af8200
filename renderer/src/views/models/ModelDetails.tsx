/** The chosen model's facts, and why it cannot be trained when it cannot. */
import type { ListedModel } from '../../../../electron/common/models.ts';
import { CopyButton } from '../../components/fields.tsx';
import { Badge } from '../../components/layout.tsx';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { formatBytes, formatCount, formatParams } from '../../lib/format.ts';

export function ModelDetails({ model, onNext }: { model: ListedModel; onNext(): void }) {
  const types = Object.entries(model.quantization?.tensorTypes ?? {}).sort((a, b) => b[1] - a[1]);
  return (
    <div className="details" data-testid="model-details">
      <p className="details-title">{model.displayName}</p>
      <p className="mono path-text">
        {model.path} <CopyButton text={model.path} />
      </p>
      {model.error ? (
        <ErrorNotice error={{ code: model.error.code, message: model.error.message }} title="This file cannot be read as a model" />
      ) : (
        <>
          <dl className="facts">
            <dt>Architecture</dt>
            <dd>{model.architecture ?? '–'}</dd>
            <dt>Parameters</dt>
            <dd>{formatParams(model.parameters)}</dd>
            <dt>Quantization</dt>
            <dd>{model.quantization?.fileType ?? model.quantization?.dominantType ?? '–'}</dd>
            <dt>Tensors</dt>
            <dd>{types.length ? types.map(([t, n]) => `${t} ×${n}`).join(', ') : '–'}</dd>
            <dt>Context</dt>
            <dd>{formatCount(model.contextLength)} tokens</dd>
            <dt>Layers</dt>
            <dd>{formatCount(model.layers)}</dd>
            <dt>File size</dt>
            <dd>
              {formatBytes(model.fileSize)}
              {model.paths.length > 1 ? ` in ${model.paths.length} parts` : ''}
            </dd>
            <dt>Chat template</dt>
            <dd>{model.hasChatTemplate ? 'included' : 'none (chat data needs a template)'}</dd>
          </dl>
          {model.trainable === false ? (
            <Notice kind="warning" title="A LoRA cannot be trained on this model">
              {model.trainableReason ?? 'The engine does not support this architecture.'}
            </Notice>
          ) : (
            <div className="details-actions">
              {model.trainable && <Badge tone="ok">trainable</Badge>}
              <button type="button" className="btn btn-primary" onClick={onNext}>
                Next: choose data
              </button>
            </div>
          )}
        </>
      )}
    </div>
  );
}
