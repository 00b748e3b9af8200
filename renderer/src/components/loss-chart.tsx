/**
 * Train loss (raw and smoothed) and eval loss on one chart, drawn from LTTB-downsampled series
 * so 100k steps cost the same as 1k. No animation: a live curve must not wobble.
 */
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartPoint } from '../store/selectors.ts';
import { formatLoss } from '../lib/format.ts';
import { usePalette, useWidth } from './use-size.ts';

export interface LossChartProps {
  raw: ChartPoint[];
  smooth: ChartPoint[];
  evalPoints: ChartPoint[];
  showRaw: boolean;
  height?: number;
  /** Points of the full series, for the caption. */
  total: number;
}

export function LossChart({ raw, smooth, evalPoints, showRaw, height = 300, total }: LossChartProps) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const p = usePalette();
  const drawn = (showRaw ? raw.length : 0) + smooth.length;
  return (
    <figure className="chart" ref={ref} data-testid="loss-chart" data-points={drawn} data-eval-points={evalPoints.length} aria-label="Loss curve">
      <LineChart width={width} height={height} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid stroke={p.grid} strokeDasharray="3 3" />
        <XAxis type="number" dataKey="x" domain={['dataMin', 'dataMax']} allowDecimals={false} stroke={p.axis} tick={{ fontSize: 12 }} name="step" />
        <YAxis type="number" dataKey="y" domain={['auto', 'auto']} stroke={p.axis} tick={{ fontSize: 12 }} width={56} tickFormatter={(v: number) => v.toFixed(2)} />
        <Tooltip formatter={(v) => formatLoss(Number(v))} labelFormatter={(l) => `step ${l}`} contentStyle={{ fontSize: 12 }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {showRaw && <Line data={raw} dataKey="y" name="train loss" stroke={p.raw} strokeWidth={1} dot={false} isAnimationActive={false} />}
        <Line data={smooth} dataKey="y" name="smoothed" stroke={p.smooth} strokeWidth={2} dot={false} isAnimationActive={false} />
        {evalPoints.length > 0 && <Line data={evalPoints} dataKey="y" name="eval loss" stroke={p.eval} strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} />}
      </LineChart>
      <figcaption className="visually-hidden">
        Loss over {total} steps{evalPoints.length ? ` with ${evalPoints.length} evaluations` : ''}.
      </figcaption>
    </figure>
  );
}

/** A small line of one series (the learning rate). */
export function MiniLine({ points, label, color, height = 90, format }: { points: ChartPoint[]; label: string; color?: string; height?: number; format(v: number): string }) {
  const [ref, width] = useWidth<HTMLDivElement>(300);
  const p = usePalette();
  return (
    <figure className="chart chart-mini" ref={ref} aria-label={label}>
      <LineChart width={width} height={height} data={points} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
        <XAxis type="number" dataKey="x" domain={['dataMin', 'dataMax']} hide />
        <YAxis type="number" dataKey="y" domain={['auto', 'auto']} width={56} stroke={p.axis} tick={{ fontSize: 11 }} tickFormatter={format} tickCount={3} />
        <Tooltip formatter={(v) => format(Number(v))} labelFormatter={(l) => `step ${l}`} contentStyle={{ fontSize: 12 }} />
        <Line dataKey="y" name={label} stroke={color ?? p.lr} strokeWidth={1.5} dot={false} isAnimationActive={false} />
      </LineChart>
    </figure>
  );
}

/** Several runs' smoothed loss curves over each other (the Runs view). */
export function OverlayChart({ curves, height = 260 }: { curves: Array<{ id: string; label: string; points: ChartPoint[] }>; height?: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const p = usePalette();
  return (
    <figure className="chart" ref={ref} data-testid="overlay-chart" aria-label="Loss curves of the selected runs">
      <LineChart width={width} height={height} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
        <CartesianGrid stroke={p.grid} strokeDasharray="3 3" />
        <XAxis type="number" dataKey="x" domain={['dataMin', 'dataMax']} allowDecimals={false} stroke={p.axis} tick={{ fontSize: 12 }} />
        <YAxis type="number" dataKey="y" domain={['auto', 'auto']} stroke={p.axis} tick={{ fontSize: 12 }} width={56} tickFormatter={(v: number) => v.toFixed(2)} />
        <Tooltip formatter={(v) => formatLoss(Number(v))} labelFormatter={(l) => `step ${l}`} contentStyle={{ fontSize: 12 }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {curves.map((c, i) => (
          <Line key={c.id} data={c.points} dataKey="y" name={c.label} stroke={p.series[i % p.series.length]} strokeWidth={2} dot={false} isAnimationActive={false} />
        ))}
      </LineChart>
    </figure>
  );
}
