/** Dataset import layer: public surface for the app and the `hone` CLI. */
export { importDataset, openDataset, scanDataset, type ImportedDataset, type OpenedDataset } from './dataset.ts';
export { DatasetError, toPlainError, type PlainError } from './errors.ts';
export type { ChatExample, ChatMessage, Example, Role, Source, SplitExample, TextExample, ToolCall } from './example.ts';
export type { CsvColumns, CsvOptions, ImportOptions } from './options.ts';
export * from '../../common/dataset-report.ts';
