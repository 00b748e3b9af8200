/** The left navigation rail: one link per view, the run's state beside Train, the connection at the foot. */
import type { ViewName } from '../app/route.ts';
import { Icon, type IconName } from './icons.tsx';

export const NAV: Array<{ view: ViewName; label: string; icon: IconName }> = [
  { view: 'models', label: 'Models', icon: 'models' },
  { view: 'datasets', label: 'Datasets', icon: 'datasets' },
  { view: 'settings', label: 'Settings', icon: 'settings' },
  { view: 'train', label: 'Train', icon: 'train' },
  { view: 'ops', label: 'Ops', icon: 'ops' },
  { view: 'runs', label: 'Runs', icon: 'runs' },
];

export interface NavRailProps {
  current: ViewName;
  /** Short state per view (a count, "running"), shown after its label. */
  badges: Partial<Record<ViewName, { text: string; tone?: 'accent' | 'ok' | 'warn' | 'bad' }>>;
  connection: { text: string; tone: 'ok' | 'warn' | 'bad' } | null;
  version: string | null;
}

export function NavRail({ current, badges, connection, version }: NavRailProps) {
  return (
    <nav className="rail" aria-label="Views">
      <div className="rail-brand">
        <span className="rail-logo" aria-hidden="true">
          <Icon name="logo" size={20} />
        </span>
        <span className="rail-name">Hone</span>
      </div>
      <ul className="rail-list">
        {NAV.map((item) => {
          const badge = badges[item.view];
          return (
            <li key={item.view}>
              <a href={`#/${item.view}`} className={`rail-link ${current === item.view ? 'current' : ''}`} aria-current={current === item.view ? 'page' : undefined}>
                <Icon name={item.icon} />
                <span className="rail-label">{item.label}</span>
                {badge && <span className={`rail-badge tone-${badge.tone ?? 'accent'}`}>{badge.text}</span>}
              </a>
            </li>
          );
        })}
      </ul>
      <div className="rail-foot">
        {connection && (
          <p className={`conn conn-${connection.tone}`} role="status">
            <span className="conn-dot" aria-hidden="true" />
            {connection.text}
          </p>
        )}
        {version && <p className="rail-version">Hone {version}</p>}
      </div>
    </nav>
  );
}
