/** The token-length histogram of a dataset; bins past the context are drawn in the warning color. */
import { Bar, BarChart, CartesianGrid, Cell, Tooltip, XAxis, YAxis } from 'recharts';
import type { TokenStats } from '../../../electron/common/engine-api.ts';
import { formatCount } from '../lib/format.ts';
import { usePalette, useWidth } from './use-size.ts';

export function LengthHistogram({ stats, height = 200 }: { stats: TokenStats; height?: number }) {
  const [ref, width] = useWidth<HTMLDivElement>(480);
  const p = usePalette();
  const data = stats.histogram.map((b) => ({ label: b.to - b.from <= 1 ? String(b.from) : `${b.from}–${b.to - 1}`, count: b.count, over: b.to - 1 > stats.ctx + 1 }));
  return (
    <figure className="chart" ref={ref} aria-label="Example lengths in tokens" data-testid="length-histogram">
      <BarChart width={width} height={height} data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
        <CartesianGrid stroke={p.grid} strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" stroke={p.axis} tick={{ fontSize: 11 }} interval={0} />
        <YAxis stroke={p.axis} tick={{ fontSize: 11 }} width={44} allowDecimals={false} />
        <Tooltip formatter={(v) => [formatCount(Number(v)), 'examples']} labelFormatter={(l) => `${l} tokens`} contentStyle={{ fontSize: 12 }} />
        <Bar dataKey="count" isAnimationActive={false}>
          {data.map((d, i) => (
            <Cell key={i} fill={d.over ? p.barWarn : p.bar} />
          ))}
        </Bar>
      </BarChart>
      <figcaption className="chart-caption">
        Tokens per example (min {formatCount(stats.lengths.min)}, median {formatCount(stats.lengths.median)}, max {formatCount(stats.lengths.max)}).
        {stats.overLength > 0 && <> Bars past the context ({formatCount(stats.ctx)}) are highlighted.</>}
      </figcaption>
    </figure>
  );
}
