/**
 * Models already on the machine: LM Studio, Ollama, the Hugging Face cache and added folders,
 * described from their GGUF headers alone (docs/models.md). Plain Node; imports only
 * electron/common and node: modules.
 */
export { ModelCatalog, listModels } from './catalog.ts';
export type { DiscoveryOptions } from './options.ts';
export { readGgufHeader, type GgufHeader, type GgufTensorInfo, type GgufValue, type ReadHeaderOptions } from './gguf-header.ts';
export { fileTypeName, ggmlType, ggmlTypeId, type GgmlType } from './ggml-types.ts';
