// Types of architectures-table.mjs for the TypeScript that imports it (tests).
export function architecturesTable(jsonLines: string): string;
export function withTable(page: string, table: string): string;
