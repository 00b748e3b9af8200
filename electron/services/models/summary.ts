/**
 * What the model list shows of a model, from the headers of its parts: metadata from the first
 * part (it alone holds the key/value pairs that matter), tensor counts and types from all.
 */
import type { ModelQuantization } from '../../common/models.ts';
import { fileTypeName, ggmlType } from './ggml-types.ts';
import type { GgufHeader, GgufValue } from './gguf-header.ts';

export interface ModelFacts {
  architecture: string | null;
  name: string | null;
  fileKind: string | null;
  parameters: number;
  tensorCount: number;
  quantization: ModelQuantization;
  contextLength: number | null;
  layers: number | null;
  embeddingSize: number | null;
  hasChatTemplate: boolean;
}

export function summarize(parts: GgufHeader[]): ModelFacts {
  const kv = parts[0].kv;
  const architecture = stringKey(kv, 'general.architecture');
  const tensorTypes: Record<string, number> = {};
  const elementsByType = new Map<string, number>();
  let parameters = 0;
  let tensorCount = 0;
  for (const part of parts) {
    for (const t of part.tensors) {
      const type = ggmlType(t.type)!.name; // the reader refuses unknown types
      tensorTypes[type] = (tensorTypes[type] ?? 0) + 1;
      elementsByType.set(type, (elementsByType.get(type) ?? 0) + t.elements);
      parameters += t.elements;
      tensorCount++;
    }
  }
  const fileType = kv.get('general.file_type');
  const arch = (key: string) => (architecture ? numberKey(kv, `${architecture}.${key}`) : null);
  const template = kv.get('tokenizer.chat_template');
  return {
    architecture,
    name: stringKey(kv, 'general.name'),
    fileKind: stringKey(kv, 'general.type'),
    parameters,
    tensorCount,
    quantization: {
      fileType: typeof fileType === 'number' ? fileTypeName(fileType) : null,
      dominantType: dominant(elementsByType, tensorTypes),
      tensorTypes: sortedKeys(tensorTypes),
    },
    contextLength: arch('context_length'),
    layers: arch('block_count'),
    embeddingSize: arch('embedding_length'),
    hasChatTemplate: typeof template === 'string' && template.length > 0,
  };
}

/** The type holding the most elements; ties go to the type with more tensors, then by name. */
function dominant(elements: Map<string, number>, counts: Record<string, number>): string | null {
  let best: string | null = null;
  for (const [type, n] of elements) {
    if (best === null) {
      best = type;
      continue;
    }
    const b = elements.get(best)!;
    if (n > b || (n === b && (counts[type] > counts[best] || (counts[type] === counts[best] && type < best)))) best = type;
  }
  return best;
}

function sortedKeys(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function stringKey(kv: Map<string, GgufValue>, key: string): string | null {
  const v = kv.get(key);
  return typeof v === 'string' ? v : null;
}

function numberKey(kv: Map<string, GgufValue>, key: string): number | null {
  const v = kv.get(key);
  return typeof v === 'number' ? v : null;
}
