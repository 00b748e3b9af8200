/** Numbers as people read them: sizes in binary units, counts grouped, durations as h:mm:ss. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes)) return '–';
  let v = Math.abs(bytes);
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const digits = u === 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${bytes < 0 ? '-' : ''}${v.toFixed(digits)} ${UNITS[u]}`;
}

export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

/** 260K, 1.5M, 7.2B: parameter counts the way model cards write them. */
export function formatParams(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–';
  const steps: Array<[number, string]> = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']];
  for (const [size, suffix] of steps) {
    if (n >= size) return `${Number((n / size).toPrecision(3))}${suffix}`;
  }
  return String(Math.round(n));
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(sec).padStart(2, '0')}`;
}

export function formatLoss(v: number | null | undefined): string {
  if (v == null) return '–';
  if (!Number.isFinite(v)) return String(v);
  return v.toFixed(4);
}

export function formatPercent(share: number | null | undefined, digits = 0): string {
  if (share == null || !Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(digits)}%`;
}

/** 1e-4 stays 1e-4; 0.0002 becomes 2e-4: learning rates are read in powers of ten. */
export function formatLr(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  return v >= 0.01 ? String(Number(v.toPrecision(3))) : v.toExponential(2).replace(/\.?0+e/, 'e').replace('e-0', 'e-');
}

export function formatFlops(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '–';
  const steps: Array<[number, string]> = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']];
  for (const [size, p] of steps) if (v >= size) return `${(v / size).toFixed(1)} ${p}FLOP`;
  return `${Math.round(v)} FLOP`;
}

/** The last part of a path (either separator): what a list shows, with the full path as a title. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit' });
}
