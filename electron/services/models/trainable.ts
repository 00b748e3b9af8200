/**
 * Whether a listed file can be trained. The engine decides which architectures train (the
 * engine host passes its list); this module only applies it, and says no by itself to files
 * that are not language models at all: LoRA adapters and vision projectors.
 */
import type { ModelFileError } from '../../common/models.ts';
import type { ModelFacts } from './summary.ts';

export interface Trainability {
  trainable: boolean | null;
  trainableReason?: string;
}

const PROJECTOR_ARCHITECTURES = new Set(['clip']);
const PROJECTOR_KINDS = new Set(['mmproj', 'projector']);

export function decideTrainable(
  facts: ModelFacts | null,
  error: ModelFileError | undefined,
  architectures: ReadonlySet<string> | null,
): Trainability {
  if (error || !facts) return { trainable: false, trainableReason: 'the file could not be read (see its error)' };
  if (facts.fileKind === 'adapter') {
    return { trainable: false, trainableReason: 'this is a LoRA adapter (general.type = adapter), not a base model' };
  }
  if (facts.fileKind === 'imatrix') {
    return { trainable: false, trainableReason: 'this is an importance matrix (general.type = imatrix), not a model' };
  }
  if ((facts.architecture && PROJECTOR_ARCHITECTURES.has(facts.architecture)) || (facts.fileKind && PROJECTOR_KINDS.has(facts.fileKind))) {
    return { trainable: false, trainableReason: `this is a vision projector (architecture '${facts.architecture}'), not a language model` };
  }
  if (!facts.architecture) return { trainable: false, trainableReason: 'the file has no general.architecture key' };
  if (!architectures) return { trainable: null };
  if (!architectures.has(facts.architecture)) {
    return { trainable: false, trainableReason: `architecture '${facts.architecture}' is not trainable yet (see docs/architectures.md)` };
  }
  return { trainable: true };
}
