/** The files read as data (few: a plain table), with a remove button per source, and those skipped. */
import type { FileReport, SkippedFile } from '../../../../electron/common/dataset-report.ts';
import { removeSource } from '../../actions/datasets.ts';
import { useEnv } from '../../app/context.tsx';
import { Badge } from '../../components/layout.tsx';
import { baseName, formatBytes, formatCount } from '../../lib/format.ts';

export function FilesTable({ files, sources, skipped }: { files: FileReport[]; sources: string[]; skipped: SkippedFile[] }) {
  const env = useEnv();
  // a file given directly can be removed; one found in a folder goes with its folder
  const sourceOf = (path: string) => sources.find((s) => s === path) ?? sources.find((s) => path.startsWith(s.replace(/[\\/]+$/, '') + '/'));
  return (
    <>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Files read as data">
        <table className="table" data-testid="dataset-files">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Format</th>
              <th scope="col">Role</th>
              <th scope="col" className="align-end">Records</th>
              <th scope="col" className="align-end">Valid</th>
              <th scope="col" className="align-end">Skipped</th>
              <th scope="col" className="align-end">Duplicates</th>
              <th scope="col" className="align-end">Size</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {files.map((f) => {
              const source = sourceOf(f.path);
              return (
                <tr key={f.path}>
                  <td title={f.path}>
                    <span className="cell-main">{baseName(f.path)}</span>
                  </td>
                  <td>
                    <Badge tone="accent">{f.format}</Badge> <span className="muted">{f.container}{f.overridden ? ', set by hand' : ''}</span>
                  </td>
                  <td>{f.role}</td>
                  <td className="align-end num">{formatCount(f.records.total)}</td>
                  <td className="align-end num">{formatCount(f.records.valid)}</td>
                  <td className={`align-end num ${f.records.invalid ? 'text-warn' : ''}`}>{formatCount(f.records.invalid)}</td>
                  <td className="align-end num">{formatCount(f.records.duplicates)}</td>
                  <td className="align-end num">{formatBytes(f.bytes)}</td>
                  <td className="align-end">
                    {source && (
                      <button type="button" className="btn btn-small btn-ghost" aria-label={`Remove ${baseName(source)}`} onClick={() => void removeSource(env, source)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {skipped.length > 0 && (
        <p className="muted small">
          Not read: {skipped.slice(0, 6).map((s) => `${baseName(s.path)} (${s.reason})`).join(', ')}
          {skipped.length > 6 ? `, and ${skipped.length - 6} more` : ''}
        </p>
      )}
    </>
  );
}
