/** The rendered width of an element (for charts sized to their card), and the system's color scheme. */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';

export function useWidth<T extends HTMLElement>(fallback = 640): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const w = Math.floor(el.getBoundingClientRect().width);
      if (w > 0) setWidth(w);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

const darkQuery = () => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null);

export function useDarkMode(): boolean {
  return useSyncExternalStore(
    (cb) => {
      const q = darkQuery();
      q?.addEventListener?.('change', cb);
      return () => q?.removeEventListener?.('change', cb);
    },
    () => darkQuery()?.matches ?? false,
  );
}

/** Chart colors per scheme (SVG attributes cannot read CSS variables everywhere). */
export function usePalette() {
  const dark = useDarkMode();
  return dark
    ? { raw: '#7c83a3', smooth: '#a5b4fc', eval: '#fbbf24', lr: '#5eead4', grid: '#2b303b', axis: '#9aa4b2', bar: '#818cf8', barWarn: '#f59e0b', series: ['#a5b4fc', '#5eead4', '#fbbf24', '#f472b6', '#86efac', '#fca5a5'] }
    : { raw: '#a3a9bd', smooth: '#4f46e5', eval: '#c2410c', lr: '#0f766e', grid: '#e5e7eb', axis: '#57606a', bar: '#6366f1', barWarn: '#d97706', series: ['#4f46e5', '#0f766e', '#c2410c', '#be185d', '#15803d', '#b91c1c'] };
}
