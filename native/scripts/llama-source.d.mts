// Types of llama-source.mjs for the TypeScript that imports it (tests).
export function cacheDir(): string;
export function fetchTarball(dir: string): string;
export function patchFiles(patchDir: string): string[];
export function patchesHash(patches: string[]): string;
/** The pinned llama.cpp source with the patches applied (cloned and patched once, then reused). */
export function prepareLlamaSource(patchDir: string): { src: string; tag: string; patches: string[] };
