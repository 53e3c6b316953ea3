import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** Shows the API's own message, unchanged, with the request id for support. */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const e = error instanceof ApiError ? error : null;
  const message = e ? e.message : error instanceof Error ? error.message : String(error);
  return (
    <div className="error-box" role="alert">
      <p>{message}</p>
      {e?.requestId && <p className="muted small">Request {e.requestId}</p>}
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

export function Progress({ value, label }: { value: number | null; label: string }) {
  const v = value ?? 0;
  return (
    <div className="progress">
      <div className="progress-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={v}>
        <div className="progress-bar" style={{ width: `${v}%` }} />
      </div>
    </div>
  );
}

export function Badge({ tone, children }: { tone?: 'ok' | 'warn' | 'bad' | 'busy' | 'muted'; children: ReactNode }) {
  return <span className={`badge ${tone ?? 'muted'}`}>{children}</span>;
}

export function Pager({ total, limit, offset, onChange }: { total: number; limit: number; offset: number; onChange(offset: number): void }) {
  if (total <= limit) return null;
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.ceil(total / limit);
  return (
    <nav className="pager" aria-label="Pagination">
      <button type="button" className="btn" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" className="btn" disabled={offset + limit >= total} onClick={() => onChange(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
