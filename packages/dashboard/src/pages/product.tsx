import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { api } from '../api/client';
import { useSession } from '../api/session';
import { IN_FLIGHT, type ModelWarning, type Product, type Quote } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { useTitle } from '../components/use-title';
import { DeliveryPanel } from '../components/delivery-panel';
import { ModelViewer } from '../components/model-viewer';
import { ViewerPanel } from '../components/viewer-panel';
import { Badge, ErrorBox, Loading, Progress } from '../components/states';
import { Review } from './product-review';
import { modelLabel, modelTone, stepLabel, statusTone } from '../components/status';


export function ProductPage() {
  const { id = '' } = useParams();
  const product = useQuery({
    queryKey: ['product', id],
    queryFn: () => api<Product>(`/v1/products/${id}`),
    refetchInterval: (q) => (q.state.data && IN_FLIGHT(q.state.data) ? 2000 : false),
  });
  useTitle(product.data?.title || 'Product');
  if (product.isPending) return <Loading label="Loading product…" />;
  if (product.error) {
    return (
      <>
        <p>
          <Link to="/products">← Products</Link>
        </p>
        <ErrorBox error={product.error} onRetry={() => product.refetch()} />
      </>
    );
  }
  return <ProductView product={product.data} />;
}

function ProductView({ product: p }: { product: Product }) {
  const busy = IN_FLIGHT(p);
  return (
    <>
      <p className="crumb">
        <Link to="/products">← Products</Link>
      </p>
      <div className="page-head">
        <div>
          <h1>{p.title || p.custom_id || p.id}</h1>
          <div className="badges">
            <Badge tone={statusTone(p.status)}>{p.status}</Badge>
            <Badge tone={modelTone(p.model_status)}>{modelLabel(p.model_status)}</Badge>
            <span className="muted small mono">{p.id}</span>
          </div>
        </div>
        <PublishButton product={p} />
      </div>
      {busy && (
        <section className="card" aria-label="Processing">
          <p>
            <strong>{stepLabel(p.step)}</strong> · {p.progress ?? 0}%
          </p>
          <Progress value={p.progress} label="Processing progress" />
        </section>
      )}
      {p.error && (
        <div className="error-box" role="alert">
          <p>{p.error.message}</p>
        </div>
      )}
      <Review product={p} />
      <ModelSection product={p} />
      <DeliveryPanel product={p} />
      <ViewerPanel product={p} />
      <Snippet product={p} />
    </>
  );
}

function PublishButton({ product: p }: { product: Product }) {
  const { orgId } = useSession();
  const client = useQueryClient();
  const published = p.status === 'published';
  const m = useMutation({
    mutationFn: () =>
      api<{ updated: string[]; refused: { id: string; reason: string }[] }>('/v1/products/publish', {
        method: 'POST',
        body: { ids: [p.id], status: published ? 'draft' : 'published', org_id: orgId },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['product', p.id] }),
  });
  const refused = m.data?.refused[0];
  return (
    <div className="publish">
      <button
        type="button"
        className={`btn ${published ? '' : 'primary'}`}
        disabled={m.isPending || (!published && p.model_status !== 'ready')}
        aria-describedby={!published && p.model_status !== 'ready' ? 'publish-hint' : undefined}
        onClick={() => m.mutate()}
      >
        {published ? 'Unpublish' : 'Publish'}
      </button>
      {!published && p.model_status !== 'ready' && (
        <p id="publish-hint" className="small muted">
          Publishing needs a ready 3D model.
        </p>
      )}
      {refused && (
        <p className="small bad-text" role="alert">
          {refused.reason === 'model_not_ready' ? 'Publishing needs a ready 3D model.' : `Refused: ${refused.reason}`}
        </p>
      )}
      {m.error && <ErrorBox error={m.error} />}
    </div>
  );
}

/** What each warning asks the reviewer to do; the server's message says what it measured. */
const WARNING_TITLES: Record<string, string> = { unusual_size: 'Check the size', over_budget: 'Over its budget' };

function ModelWarnings({ warnings }: { warnings: ModelWarning[] }) {
  if (!warnings.length) return null;
  return (
    <div className="note model-warnings" role="note" aria-label="Model warnings">
      {warnings.map((w) => (
        <p key={`${w.code}-${w.delivery ?? ''}`}>
          <strong>{WARNING_TITLES[w.code] ?? 'Check the model'}.</strong> {w.message}
          {w.code === 'unusual_size' && (
            <>
              {' '}
              <a href="#rescale-height">Enter the real height</a> and press Rescale.
            </>
          )}
        </p>
      ))}
    </div>
  );
}

function ModelSection({ product: p }: { product: Product }) {
  const client = useQueryClient();
  const [height, setHeight] = useState('');
  const rescale = useMutation({
    mutationFn: () => api<Product>(`/v1/products/${p.id}/model/rescale`, { method: 'POST', body: { dimensions: { height: Number(height) } } }),
    onSuccess: (next) => client.setQueryData(['product', p.id], next),
  });
  const q = p.model?.quality;
  const d = p.model?.dimensions;
  return (
    <section className="card" aria-labelledby="model-h">
      <h2 id="model-h">3D model</h2>
      {p.model?.url ? (
        <div className="model-layout">
          <ModelViewer src={p.model.url} poster={p.thumbnail_url} label={`3D model of ${p.title || p.id}`} />
          <div>
            <ModelWarnings warnings={p.model.warnings ?? []} />
            <dl className="facts">
              {d && (
                <>
                  <dt>Size</dt>
                  <dd>
                    {fmt(d.width)} × {fmt(d.height)} × {fmt(d.depth)} m (w × h × d)
                  </dd>
                </>
              )}
              {p.model.triangles != null && (
                <>
                  <dt>Triangles</dt>
                  <dd>{p.model.triangles.toLocaleString()}</dd>
                </>
              )}
              {p.model.bytes != null && (
                <>
                  <dt>File</dt>
                  <dd>{p.model.bytes < 1e6 ? `${Math.max(1, Math.round(p.model.bytes / 1e3))} KB` : `${(p.model.bytes / 1e6).toFixed(1)} MB`}</dd>
                </>
              )}
              {q && (
                <>
                  <dt>Method</dt>
                  <dd>
                    {q.method.replace(/_/g, ' ')}
                    {q.pose_source ? ` · cameras ${q.pose_source}` : ''}
                  </dd>
                  {q.views_total > 0 && (
                    <>
                      <dt>Views used</dt>
                      <dd>
                        {q.views_used} of {q.views_total}
                      </dd>
                    </>
                  )}
                  {q.heldout_iou && (
                    <>
                      <dt>Match on unseen photos</dt>
                      <dd>
                        median {q.heldout_iou.median.toFixed(2)}, worst {q.heldout_iou.min.toFixed(2)} ({q.heldout_iou.views} photos left out in turn)
                      </dd>
                    </>
                  )}
                  {q.silhouette_iou && (
                    <>
                      <dt>Silhouette match</dt>
                      <dd>
                        median {q.silhouette_iou.median.toFixed(2)}, worst {q.silhouette_iou.min.toFixed(2)}
                      </dd>
                    </>
                  )}
                  {q.coverage && (
                    <>
                      <dt>Coverage</dt>
                      <dd>
                        widest gap {Math.round(q.coverage.largest_gap_deg)}°, cameras {Math.round(q.coverage.elevation_min_deg)}° to{' '}
                        {Math.round(q.coverage.elevation_max_deg)}° above the product
                      </dd>
                    </>
                  )}
                  {q.stereo_coverage != null && (
                    <>
                      <dt>Measured by stereo</dt>
                      <dd>{Math.round(q.stereo_coverage * 100)}% of the surface</dd>
                    </>
                  )}
                  {q.largest_piece != null && (
                    <>
                      <dt>Largest piece</dt>
                      <dd>{Math.round(q.largest_piece * 100)}% of the surface</dd>
                    </>
                  )}
                  <dt>Scale</dt>
                  <dd>{q.scale_source}</dd>
                </>
              )}
            </dl>
            <form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                rescale.mutate();
              }}
            >
              <label className="field">
                <span>Real height (m)</span>
                <input id="rescale-height" type="number" min="0.001" max="1000" step="any" required value={height} onChange={(e) => setHeight(e.target.value)} />
              </label>
              <button type="submit" className="btn" disabled={rescale.isPending}>
                Rescale
              </button>
            </form>
            {rescale.error && <ErrorBox error={rescale.error} />}
            {rescale.isSuccess && (
              <p role="status" className="small ok-text">
                Rescaled.
              </p>
            )}
          </div>
        </div>
      ) : p.model_status === 'queued' || p.model_status === 'generating' ? (
        <p className="muted">The model is being built: {stepLabel(p.step)}.</p>
      ) : (
        <>
          {p.model_status === 'failed' && <p className="bad-text">{p.model_error?.message ?? p.error?.message ?? 'Generation failed; the credits were refunded.'}</p>}
          <p className="muted">No 3D model yet.</p>
        </>
      )}
      <Order product={p} />
    </section>
  );
}

const fmt = (n: number) => (n < 1 ? n.toFixed(3) : n.toFixed(2));

/** The missing half: a model for an images-only product, renders for a model-only one; quote first. */
function Order({ product: p }: { product: Product }) {
  const client = useQueryClient();
  const [quote, setQuote] = useState<Quote | null>(null);
  const wantsModel = p.model_status === 'none' || p.model_status === 'failed';
  const wantsImages = p.images_status === 'none' && p.model_status === 'ready';
  const ask = useMutation({ mutationFn: () => api<Quote>(`/v1/products/${p.id}/order`, { method: 'POST', body: {} }), onSuccess: setQuote });
  const commit = useMutation({
    mutationFn: () => api<Product>('/v1/products', { method: 'POST', body: { resume_token: quote!.resume_token } }),
    onSuccess: (next) => {
      setQuote(null);
      client.setQueryData(['product', p.id], next);
      void client.invalidateQueries({ queryKey: ['me'] });
    },
  });
  if (!wantsModel && !wantsImages) return null;
  const what = wantsModel ? '3D model' : 'product images';
  return (
    <div className="order">
      {quote ? (
        <div className="quote" aria-live="polite">
          <p>
            The {what} costs <strong>{quote.credits} credits</strong> (balance {quote.balance_credits}), about{' '}
            {Math.max(1, Math.round(quote.estimated_seconds / 60))} min.
          </p>
          <div className="row-actions">
            <button type="button" className="btn" onClick={() => setQuote(null)}>
              Cancel
            </button>
            <button type="button" className="btn primary" disabled={commit.isPending} onClick={() => commit.mutate()}>
              Confirm order
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="btn" disabled={ask.isPending} onClick={() => ask.mutate()}>
          {wantsModel ? 'Order a 3D model' : 'Order product images'}
        </button>
      )}
      {ask.error && <ErrorBox error={ask.error} />}
      {commit.error && <ErrorBox error={commit.error} />}
    </div>
  );
}

function Snippet({ product: p }: { product: Product }) {
  const origin = window.location.origin;
  const snippet = `<script type="module" src="${origin}/embed.js"></script>
<service-model product-id="${p.id}" publishable-key="pk_…" api-base="${origin}"></service-model>`;
  return (
    <section className="card" aria-labelledby="embed-h">
      <div className="section-head">
        <h2 id="embed-h">Embed</h2>
        <CopyButton text={snippet} label="Copy snippet" />
      </div>
      <p className="muted small">
        Paste this where the product should appear, with a publishable key of a project whose allowed domains include your shop (
        <Link to="/keys">API keys</Link>). Shoppers see the product once it is published.
      </p>
      <pre className="code" aria-label="Embed snippet" tabIndex={0}>
        {snippet}
      </pre>
    </section>
  );
}
