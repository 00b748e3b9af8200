/**
 * Train: the followed run live. Loss (raw, smoothed, eval) on one chart, learning rate,
 * tokens/s, elapsed and ETA, progress, and pause / resume / stop / cancel. A host crash shows
 * its reason and "resume from step N", never a spinner. Every number has a fixed place, so
 * nothing jumps while it trains.
 */
import { useShallow } from 'zustand/react/shallow';
import { followRunById } from '../../actions/run.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { go } from '../../app/route.ts';
import { CopyButton } from '../../components/fields.tsx';
import { LossChart, MiniLine } from '../../components/loss-chart.tsx';
import { Card, PageHeader, Stat } from '../../components/layout.tsx';
import { ProgressBar } from '../../components/pool-bars.tsx';
import { EmptyState, ErrorNotice, Notice } from '../../components/status.tsx';
import { formatCount, formatDuration, formatLoss, formatLr } from '../../lib/format.ts';
import {
  selectChartSeries,
  selectElapsedS,
  selectEtaS,
  selectLatestEvalLoss,
  selectLatestLoss,
  selectLatestLr,
  selectLatestSmoothedLoss,
  selectLatestStep,
  selectLrSeries,
  selectProgress,
  selectRowFill,
  selectTokensPerS,
  selectTotalSteps,
} from '../../store/selectors.ts';
import { RunControls, StatusBadge } from './RunControls.tsx';
import { CrashPanel } from './CrashPanel.tsx';

const MAX_POINTS = 1200;

export function TrainView() {
  const env = useEnv();
  const summary = useApp((s) => s.run.summary);
  const syncing = useApp((s) => s.run.syncing);
  const action = useApp((s) => s.run.action);
  const latestRun = useApp((s) => s.runs.list.data?.[0] ?? null);
  if (!summary) {
    return (
      <div className="view">
        <PageHeader title="Train" subtitle="The run in progress: loss, speed and controls." />
        {action.status === 'error' && <ErrorNotice error={action.error!} title="The run could not be opened" />}
        <Card>
          <EmptyState
            title="No run in progress"
            icon="train"
            action={
              <div className="row-gap">
                <button type="button" className="btn btn-primary" onClick={() => go('settings')}>
                  Set up a run
                </button>
                {latestRun && (
                  <button type="button" className="btn" onClick={() => void followRunById(env, latestRun.id)}>
                    Open the latest run ({latestRun.title})
                  </button>
                )}
              </div>
            }
          >
            Choose a model and data, check the plan in Settings, then start. A run keeps going if this window closes; reopening it brings the curve back.
          </EmptyState>
        </Card>
      </div>
    );
  }
  return (
    <div className="view">
      <PageHeader
        title="Train"
        subtitle={
          <>
            <StatusBadge status={summary.status} /> <span className="run-title">{summary.title}</span>
          </>
        }
        actions={<RunControls run={summary} />}
      />
      {action.status === 'error' && <ErrorNotice error={action.error!} title="That did not work" />}
      <CrashPanel />
      <RunStats />
      <Card title="Loss" actions={<ChartControls />}>
        <ChartBody syncing={syncing} />
      </Card>
      <div className="grid-2">
        <Card title="Learning rate">
          <LrChart />
        </Card>
        <PhaseAndAdapter />
      </div>
    </div>
  );
}

function RunStats() {
  const v = useApp(
    useShallow((s) => ({
      step: selectLatestStep(s) ?? s.run.summary?.step ?? null,
      total: selectTotalSteps(s),
      loss: selectLatestLoss(s),
      smooth: selectLatestSmoothedLoss(s),
      evalLoss: selectLatestEvalLoss(s) ?? s.run.summary?.lastEvalLoss ?? null,
      lr: selectLatestLr(s),
      tps: selectTokensPerS(s),
      fill: selectRowFill(s),
      elapsed: selectElapsedS(s),
      eta: selectEtaS(s),
      progress: selectProgress(s),
    })),
  );
  return (
    <Card className="card-stats">
      <dl className="stats stats-7" data-testid="run-stats">
        <Stat label="Step" value={<span data-testid="stat-step">{v.step == null ? '–' : `${formatCount(v.step)} / ${formatCount(v.total)}`}</span>} />
        <Stat label="Train loss" value={formatLoss(v.loss)} hint={`smoothed ${formatLoss(v.smooth)}`} />
        <Stat label="Eval loss" value={formatLoss(v.evalLoss)} />
        <Stat label="Learning rate" value={formatLr(v.lr)} />
        <Stat
          label="Tokens / s"
          value={<span data-testid="stat-tps">{v.tps == null ? '–' : formatCount(v.tps)}</span>}
          hint={v.fill == null ? undefined : <span data-testid="stat-row-fill" title="Padding is never counted as tokens">rows {Math.round(v.fill * 100)}% full</span>}
        />
        <Stat label="Elapsed" value={formatDuration(v.elapsed)} />
        <Stat label="ETA" value={formatDuration(v.eta)} />
      </dl>
      <ProgressBar value={v.progress} label="Training progress" />
    </Card>
  );
}

function ChartControls() {
  const chart = useApp((s) => s.run.chart);
  const setChart = useApp((s) => s.setChart);
  return (
    <div className="chart-controls">
      <label className="check">
        <input type="checkbox" checked={chart.showRaw} onChange={(e) => setChart({ showRaw: e.currentTarget.checked })} />
        <span>Raw loss</span>
      </label>
      <label className="range">
        <span>Smoothing</span>
        <input type="range" min={0} max={0.99} step={0.01} value={chart.smoothing} onChange={(e) => setChart({ smoothing: Number(e.currentTarget.value) })} aria-valuetext={chart.smoothing.toFixed(2)} />
        <span className="num range-value">{chart.smoothing.toFixed(2)}</span>
      </label>
    </div>
  );
}

function ChartBody({ syncing }: { syncing: boolean }) {
  const series = useApp((s) => selectChartSeries(s, MAX_POINTS));
  const showRaw = useApp((s) => s.run.chart.showRaw);
  const phase = useApp((s) => s.run.phase);
  if (series.total === 0) {
    return (
      <div className="chart-empty" style={{ height: 300 }}>
        <p className="muted">{syncing ? 'Loading the recorded curve…' : phase ? `${phase.phase}: ${phase.message}` : 'Waiting for the first step…'}</p>
      </div>
    );
  }
  return <LossChart raw={series.raw} smooth={series.smooth} evalPoints={series.eval} showRaw={showRaw} total={series.total} />;
}

function LrChart() {
  const points = useApp((s) => selectLrSeries(s, 400));
  if (points.length === 0) return <div className="chart-empty" style={{ height: 90 }} />;
  return <MiniLine points={points} label="Learning rate by step" format={formatLr} />;
}

function PhaseAndAdapter() {
  const summary = useApp((s) => s.run.summary)!;
  const phase = useApp((s) => s.run.phase);
  const checkpoint = useApp((s) => s.run.lastCheckpointStep ?? s.run.summary?.resumableStep ?? null);
  return (
    <Card title="Run">
      <dl className="facts">
        <dt>Phase</dt>
        <dd>{phase ? `${phase.phase}: ${phase.message}` : '–'}</dd>
        <dt>Checkpoint</dt>
        <dd>{checkpoint != null ? `step ${formatCount(checkpoint)}` : 'none yet'}</dd>
        <dt>Segments</dt>
        <dd>{summary.segments}</dd>
        <dt>Adapter</dt>
        <dd data-testid="adapter-path">
          {summary.adapter ? (
            <>
              <span className="mono path-text">{summary.adapter}</span> <CopyButton text={summary.adapter} />
            </>
          ) : (
            'written when the run finishes or stops'
          )}
        </dd>
      </dl>
      {summary.status === 'finished' && (
        <Notice kind="success" title="Finished">
          The adapter is a llama.cpp LoRA GGUF: load it with <code>--lora</code>. Compare this run with others in <a href="#/runs">Runs</a>.
        </Notice>
      )}
    </Card>
  );
}
