/** File system errors in words, for messages that name the path. */

/** A file system error in words, with its code. */
export function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ENOENT: 'no such file or folder',
    ENOTDIR: 'not a folder',
    ELOOP: 'too many levels of symbolic links',
  };
  const text = (e.code && words[e.code]) ?? e.message ?? String(err);
  return e.code ? `${text} (${e.code})` : text;
}
