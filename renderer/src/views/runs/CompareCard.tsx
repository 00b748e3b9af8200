/** The ticked runs' smoothed loss curves over each other, and with two ticked the options they differ in. */
import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useApp } from '../../app/context.tsx';
import { OverlayChart } from '../../components/loss-chart.tsx';
import { Card } from '../../components/layout.tsx';
import { ErrorNotice, Loading } from '../../components/status.tsx';
import { configDiff, showValue } from '../../lib/config-diff.ts';
import { lttb } from '../../lib/lttb.ts';
import { smoothEma } from '../../lib/smoothing.ts';

export function CompareCard() {
  const selected = useApp(useShallow((s) => s.runs.selected));
  const curves = useApp((s) => s.runs.curves);
  const details = useApp((s) => s.runs.details);
  const smoothing = useApp((s) => s.run.chart.smoothing);
  const lines = useMemo(
    () =>
      selected
        .filter((id) => curves[id]?.data)
        .map((id) => {
          const c = curves[id].data!;
          return { id, label: id, points: lttb(c.steps, smoothEma(c.loss, smoothing), 600) };
        }),
    [selected, curves, smoothing],
  );
  const loadingAny = selected.some((id) => curves[id]?.status === 'loading');
  const errors = selected.map((id) => curves[id]?.error ?? details[id]?.error).filter(Boolean);
  const pair = selected.length === 2 ? selected.map((id) => details[id]?.data ?? null) : null;
  const diff = pair && pair[0] && pair[1] ? configDiff(pair[0].config as unknown as Record<string, unknown>, pair[1].config as unknown as Record<string, unknown>) : null;
  return (
    <Card title={`Compare (${selected.length})`} className="card-compare">
      {errors.map((e, i) => (
        <ErrorNotice key={i} error={e!} title="A run could not be read" />
      ))}
      {loadingAny && lines.length === 0 ? <Loading label="Reading the curves…" /> : <OverlayChart curves={lines} />}
      {selected.length === 1 && <p className="muted small">Tick a second run to see how their settings differ.</p>}
      {selected.length > 2 && <p className="muted small">The settings difference needs exactly two runs.</p>}
      {pair && !diff && <Loading label="Reading their settings…" />}
      {diff && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Settings that differ">
          <table className="table table-wrapping" data-testid="config-diff">
            <caption className="table-caption">{diff.length ? `${diff.length} setting(s) differ` : 'Same settings'}</caption>
            <thead>
              <tr>
                <th scope="col">Setting</th>
                <th scope="col" title={pair![0]!.title}>{pair![0]!.id}</th>
                <th scope="col" title={pair![1]!.title}>{pair![1]!.id}</th>
              </tr>
            </thead>
            <tbody>
              {diff.map((d) => (
                <tr key={d.key}>
                  <th scope="row">
                    <code>{d.key}</code>
                  </th>
                  <td className="mono">{showValue(d.a)}</td>
                  <td className="mono">{showValue(d.b)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
