import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, withQuery } from '../api/client';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { ProductList } from '../api/types';
import { Empty, ErrorBox, Loading, Pager } from '../components/states';
import { useTitle } from '../components/use-title';
import { PRESETS } from '../components/compliance';

interface Queued {
  status: 'queued';
  export_id: string;
  pending_images: number;
  total_images: number;
  notify_email: string;
}

const LIMIT = 50;

export function ExportsPage() {
  const { orgId, me } = useSession();
  const [picked, setPicked] = useState<string[]>([]);
  const [offset, setOffset] = useState(0);
  const [rejected, setRejected] = useState(false);
  const [email, setEmail] = useState(me.user.email);
  const [preset, setPreset] = useState('');
  const [strict, setStrict] = useState(false);
  useTitle('Exports');
  const products = useQuery({
    queryKey: ['products', 'export', orgId, offset],
    queryFn: () => api<ProductList>('/v1/products', { query: { org_id: orgId, limit: LIMIT, offset } }),
  });
  const exp = useMutation({
    mutationFn: async (): Promise<{ file: string } | Queued> => {
      const url = withQuery('/v1/products/export', {
        org_id: orgId,
        ids: picked,
        image_review_status: rejected ? ['accepted', 'pending', 'rejected'] : ['accepted', 'pending'],
        notify_email: email,
        preset: preset || undefined,
        strict: preset && strict ? true : undefined,
      });
      const res = await fetch(url, { credentials: 'same-origin' });
      if (res.status === 202) return (await res.json()) as Queued;
      if (!res.ok) {
        const e = (await res.json().catch(() => null))?.error;
        throw new ApiError(res.status, e?.code ?? 'http_error', e?.message ?? `The server answered ${res.status}.`, e?.details ?? null, e?.request_id ?? null);
      }
      const blob = await res.blob();
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = /filename="?([^";]+)/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'plinth-export.zip';
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      return { file: a.download };
    },
  });
  const toggle = (id: string) => setPicked((all) => (all.includes(id) ? all.filter((x) => x !== id) : [...all, id]));
  const page = products.data?.data ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Exports</h1>
      </div>
      <p className="muted">
        Download finished images (cut out, on your background, with shadow) as a ZIP with a manifest. Large exports are prepared in the
        background and the download link is e-mailed.
      </p>
      {products.isPending ? (
        <Loading label="Loading products…" />
      ) : products.error ? (
        <ErrorBox error={products.error} onRetry={() => products.refetch()} />
      ) : products.data.total === 0 ? (
        <Empty title="Nothing to export yet">
          <p>Add products first; their reviewed images can then be exported here.</p>
        </Empty>
      ) : (
        <div className="split">
          <section className="card grow" aria-labelledby="pick-h">
            <div className="section-head">
              <h2 id="pick-h">Select products</h2>
              <button
                type="button"
                className="link-btn"
                onClick={() => setPicked((all) => (page.every((p) => all.includes(p.id)) ? all.filter((id) => !page.some((p) => p.id === id)) : [...new Set([...all, ...page.map((p) => p.id)])]))}
              >
                Select all on this page
              </button>
            </div>
            <ul className="pick-list">
              {page.map((p) => (
                <li key={p.id}>
                  <label className="check">
                    <input type="checkbox" checked={picked.includes(p.id)} onChange={() => toggle(p.id)} />
                    {p.thumbnail_url && <img src={p.thumbnail_url} alt="" width={36} height={36} />}
                    <span>{p.title || p.id}</span>
                    <span className="muted small">{p.images.filter((i) => i.image_review_status === 'accepted').length} accepted</span>
                  </label>
                </li>
              ))}
            </ul>
            <Pager total={products.data.total} limit={LIMIT} offset={offset} onChange={setOffset} />
          </section>
          <section className="card side" aria-labelledby="export-h">
            <h2 id="export-h">Export</h2>
            <p>
              {picked.length} product{picked.length === 1 ? '' : 's'} selected (at most 200).
            </p>
            <label className="field">
              <span>Channel</span>
              <select value={preset} onChange={(e) => setPreset(e.target.value)}>
                <option value="">Each image's own settings</option>
                {PRESETS.map((p) => (
                  <option key={p.value} value={p.value}>
                    {p.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="check">
              <input type="checkbox" checked={strict} disabled={!preset} onChange={(e) => setStrict(e.target.checked)} /> Leave out images that break the
              channel's rules
            </label>
            <p className="small muted">Every image's compliance, and the images that fail a rule, are listed in the ZIP's manifest.json.</p>
            <label className="check">
              <input type="checkbox" checked={rejected} onChange={(e) => setRejected(e.target.checked)} /> Include rejected images
            </label>
            <label className="field">
              <span>E-mail the link to (large exports)</span>
              <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
            </label>
            <button type="button" className="btn primary wide" disabled={!picked.length || exp.isPending} onClick={() => exp.mutate()}>
              {exp.isPending ? 'Preparing…' : 'Download ZIP'}
            </button>
            {exp.error && <ErrorBox error={exp.error} />}
            {exp.data && 'file' in exp.data && (
              <p role="status" className="ok-text small">
                Downloaded {exp.data.file}.
              </p>
            )}
            {exp.data && 'export_id' in exp.data && (
              <p role="status" className="small">
                Queued: {exp.data.pending_images} of {exp.data.total_images} images still need finishing. A download link will be sent to{' '}
                {exp.data.notify_email}.
              </p>
            )}
          </section>
        </div>
      )}
    </>
  );
}
