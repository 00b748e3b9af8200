/**
 * The share of the training graph's ops per backend, one bar each (CPU grey, a GPU in the
 * accent colour): the plan's placement and the Ops view's use the same list.
 */
import { formatCount, formatPercent } from '../lib/format.ts';
import type { backendShares } from '../lib/ops-rows.ts';

type Share = ReturnType<typeof backendShares>[number];

export function ShareList({ shares, wide = false, nodeShare = false }: { shares: Share[]; wide?: boolean; nodeShare?: boolean }) {
  return (
    <ul className={wide ? 'share-list share-list-wide' : 'share-list'} aria-label="Share of ops per backend">
      {shares.map((b) => (
        <li key={b.backend}>
          <span className="backend-name">{b.backend}</span>
          <span className="share-bar" aria-hidden="true">
            <span className={b.backend === 'CPU' ? 'share-cpu' : 'share-gpu'} style={{ width: `${b.nodeShare * 100}%` }} />
          </span>
          <span className="num">
            {formatCount(b.nodes)} ops{nodeShare ? ` (${formatPercent(b.nodeShare)})` : ''} · {formatPercent(b.flopsShare)} FLOPs
          </span>
        </li>
      ))}
    </ul>
  );
}
