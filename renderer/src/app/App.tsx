/** The window: navigation rail on the left, the current view on the right. */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { NavRail, type NavRailProps } from '../components/nav-rail.tsx';
import { DatasetsView } from '../views/datasets/DatasetsView.tsx';
import { ModelsView } from '../views/models/ModelsView.tsx';
import { OpsView } from '../views/ops/OpsView.tsx';
import { RunsView } from '../views/runs/RunsView.tsx';
import { SettingsView } from '../views/settings/SettingsView.tsx';
import { TrainView } from '../views/train/TrainView.tsx';
import { isActive } from '../store/selectors.ts';
import { useApp, useEnv } from './context.tsx';
import { useView, type ViewName } from './route.ts';
import type { ConnectionInfo } from '../service/web-client.ts';

const VIEW_COMPONENTS: Record<ViewName, () => React.JSX.Element> = {
  models: ModelsView,
  datasets: DatasetsView,
  settings: SettingsView,
  train: TrainView,
  ops: OpsView,
  runs: RunsView,
};

const noConnection = () => () => {};

function useConnection(): ConnectionInfo | null {
  const { connection } = useEnv();
  return useSyncExternalStore(connection ? connection.on : noConnection, () => connection?.get() ?? null);
}

function connectionBadge(info: ConnectionInfo | null): NavRailProps['connection'] {
  if (!info) return null;
  if (info.state === 'open') return { text: 'Connected', tone: 'ok' };
  if (info.state === 'connecting') return { text: 'Connecting…', tone: 'warn' };
  return { text: info.retryInMs != null ? `Disconnected, retrying in ${Math.ceil(info.retryInMs / 1000)} s` : 'Disconnected', tone: 'bad' };
}

export function App() {
  const view = useView();
  const main = useRef<HTMLElement>(null);
  const connection = useConnection();
  const modelCount = useApp((s) => s.models.list.data?.models.length ?? null);
  const fileCount = useApp((s) => s.datasets.report.data?.files.length ?? null);
  const runStatus = useApp((s) => s.run.summary?.status ?? null);
  const hostDown = useApp((s) => s.run.hostExit != null);
  const runCount = useApp((s) => s.runs.list.data?.length ?? null);
  const version = useApp((s) => s.settings.info.data?.version ?? null);
  const fallbacks = useApp((s) => {
    const ops = s.plan.result.data?.ops as { cpu_fallbacks?: unknown[] } | undefined;
    return Array.isArray(ops?.cpu_fallbacks) ? ops.cpu_fallbacks.length : null;
  });

  // a view change moves focus to the new view's heading, as a page load would for a screen reader
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
    main.current?.scrollTo?.({ top: 0 });
  }, [view]);

  const badges: NavRailProps['badges'] = {};
  if (modelCount) badges.models = { text: String(modelCount) };
  if (fileCount) badges.datasets = { text: String(fileCount) };
  if (hostDown || runStatus === 'interrupted' || runStatus === 'failed') badges.train = { text: runStatus === 'failed' ? 'failed' : 'interrupted', tone: 'bad' };
  else if (isActive(runStatus)) badges.train = { text: runStatus === 'starting' ? 'starting' : 'live', tone: 'ok' };
  if (fallbacks) badges.ops = { text: `${fallbacks} CPU`, tone: 'warn' };
  if (runCount) badges.runs = { text: String(runCount) };

  const View = VIEW_COMPONENTS[view];
  return (
    <div className="app">
      {/* a button, not a #main link: the hash is the router's */}
      <button type="button" className="skip-link" onClick={() => main.current?.querySelector<HTMLElement>('h1')?.focus()}>
        Skip to content
      </button>
      <NavRail current={view} badges={badges} connection={connectionBadge(connection)} version={version} />
      <main className="main" id="main" ref={main} data-view={view}>
        <View />
      </main>
    </div>
  );
}
