/**
 * A table that renders only the rows in view (fixed row height), so thousands of problems or
 * graph nodes scroll smoothly. ARIA table semantics (a grid when rows can be chosen, with
 * arrow keys, Home/End, Page Up/Down and Enter), sortable column headers, sticky header.
 */
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface Column<T> {
  key: string;
  header: string;
  /** A CSS grid track: `2fr`, `120px`, `minmax(80px, 1fr)`. */
  width: string;
  render(row: T): ReactNode;
  align?: 'start' | 'end';
  /** Set: the header is a button that sorts by this key. */
  sortKey?: string;
  /** Tooltip text of a cell (full paths, long reasons). */
  title?(row: T): string | undefined;
}

export interface VirtualTableProps<T> {
  rows: readonly T[];
  columns: Column<T>[];
  rowKey(row: T, index: number): string;
  label: string;
  rowHeight?: number;
  /** Largest height of the scrolling body in px (the table shrinks to fewer rows). */
  maxHeight?: number;
  selectedKey?: string | null;
  onSelect?(row: T): void;
  rowClass?(row: T): string | undefined;
  sort?: { key: string; dir: 'asc' | 'desc'; onSort(key: string): void };
  empty?: ReactNode;
}

const OVERSCAN = 6;
const HEADER_HEIGHT = 36;

export function VirtualTable<T>(props: VirtualTableProps<T>) {
  const { rows, columns, rowKey, label, rowHeight = 36, maxHeight = 480, selectedKey, onSelect, rowClass, sort, empty } = props;
  const id = useId();
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [active, setActive] = useState(-1);
  const selectable = !!onSelect;
  const template = columns.map((c) => c.width).join(' ');
  const bodyHeight = Math.min(maxHeight, Math.max(rows.length, 1) * rowHeight);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + bodyHeight) / rowHeight) + OVERSCAN);

  useEffect(() => {
    if (active >= rows.length) setActive(rows.length - 1);
  }, [rows.length, active]);

  const reveal = useCallback(
    (index: number) => {
      const el = scroller.current;
      if (!el) return;
      const top = index * rowHeight;
      const view = el.clientHeight ? el.clientHeight - HEADER_HEIGHT : bodyHeight;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + rowHeight > el.scrollTop + view) el.scrollTop = top + rowHeight - view;
      setScrollTop(el.scrollTop);
    },
    [rowHeight, bodyHeight],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!selectable || rows.length === 0) return;
    const page = Math.max(1, Math.floor(bodyHeight / rowHeight) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    let next = active;
    if (e.key in moves) next = Math.min(rows.length - 1, Math.max(0, (active < 0 ? -1 : active) + moves[e.key]));
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = rows.length - 1;
    else if ((e.key === 'Enter' || e.key === ' ') && active >= 0) {
      e.preventDefault();
      onSelect?.(rows[active]);
      return;
    } else return;
    e.preventDefault();
    setActive(next);
    reveal(next);
  };

  const rowId = (i: number) => `${id}-row-${i}`;
  const role = selectable ? 'grid' : 'table';
  const cellRole = selectable ? 'gridcell' : 'cell';

  return (
    <div
      ref={scroller}
      className={`vtable ${selectable ? 'vtable-selectable' : ''}`}
      role={role}
      aria-label={label}
      aria-rowcount={rows.length + 1}
      aria-colcount={columns.length}
      aria-activedescendant={selectable && active >= 0 && active < rows.length ? rowId(active) : undefined}
      tabIndex={0}
      style={{ maxHeight: bodyHeight + HEADER_HEIGHT }}
      onScroll={(e) => setScrollTop((e.target as HTMLDivElement).scrollTop)}
      onKeyDown={onKeyDown}
      onFocus={() => {
        if (selectable && active < 0 && rows.length) {
          const sel = rows.findIndex((r, i) => rowKey(r, i) === selectedKey);
          setActive(sel >= 0 ? sel : 0);
        }
      }}
    >
      <div role="rowgroup" className="vtable-head">
        <div role="row" aria-rowindex={1} className="vtable-row vtable-header-row" style={{ gridTemplateColumns: template, height: HEADER_HEIGHT }}>
          {columns.map((c) => {
            const sorted = sort && c.sortKey && sort.key === c.sortKey ? sort.dir : null;
            return (
              <div
                key={c.key}
                role="columnheader"
                className={`vtable-cell vtable-th ${c.align === 'end' ? 'align-end' : ''}`}
                aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : c.sortKey && sort ? 'none' : undefined}
              >
                {c.sortKey && sort ? (
                  <button type="button" className="th-button" onClick={() => sort.onSort(c.sortKey!)}>
                    {c.header}
                    <span className="sort-mark" aria-hidden="true">{sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : ''}</span>
                  </button>
                ) : (
                  c.header
                )}
              </div>
            );
          })}
        </div>
      </div>
      <div role="rowgroup" className="vtable-body" style={{ height: Math.max(rows.length, 1) * rowHeight }}>
        {rows.length === 0 && (
          <div role="row" aria-rowindex={2} className="vtable-row vtable-empty" style={{ height: rowHeight }}>
            <div role={cellRole} className="vtable-cell" aria-colspan={columns.length}>
              {empty ?? 'Nothing to show'}
            </div>
          </div>
        )}
        {rows.slice(first, last).map((row, k) => {
          const i = first + k;
          const key = rowKey(row, i);
          const isSelected = selectable && key === selectedKey;
          return (
            <div
              key={key}
              id={rowId(i)}
              role="row"
              aria-rowindex={i + 2}
              aria-selected={selectable ? isSelected : undefined}
              className={`vtable-row ${i % 2 ? 'odd' : ''} ${isSelected ? 'selected' : ''} ${i === active ? 'active' : ''} ${rowClass?.(row) ?? ''}`}
              style={{ gridTemplateColumns: template, height: rowHeight, transform: `translateY(${i * rowHeight}px)` }}
              onClick={
                selectable
                  ? () => {
                      setActive(i);
                      onSelect?.(row);
                    }
                  : undefined
              }
            >
              {columns.map((c) => (
                <div key={c.key} role={cellRole} className={`vtable-cell ${c.align === 'end' ? 'align-end' : ''}`} title={c.title?.(row)}>
                  {c.render(row)}
                </div>
              ))}
            </div>
          );
        })}
      </div>
    </div>
  );
}
