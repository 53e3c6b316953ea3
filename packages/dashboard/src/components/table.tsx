import type { ReactNode } from 'react';

export interface Column {
  label: string;
  /** right-aligned numbers */
  num?: boolean;
  /** named for screen readers only (an actions column) */
  hidden?: boolean;
}

/** A scrollable table with a caption for screen readers; rows come as children. */
export function Table({ caption, columns, children }: { caption: string; columns: (string | Column)[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const col = typeof c === 'string' ? { label: c } : c;
              return (
                <th key={col.label} scope="col" className={col.num ? 'num' : undefined}>
                  {col.hidden ? <span className="sr-only">{col.label}</span> : col.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
