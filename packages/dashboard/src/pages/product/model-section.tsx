import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useLoadedProduct, useSetProduct } from '../../api/products';
import type { ModelWarning, Product } from '../../api/types';
import { ModelViewer } from '../../components/model-viewer';
import { ErrorBox } from '../../components/states';
import { stepLabel } from '../../components/status';
import { fileSize } from './delivery-section';
import { Order } from './order';

/** The 3D model: what it is and how it was made, a rescale to the real height, or ordering one. */
export function ModelSection({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  const setProduct = useSetProduct(productId);
  const [height, setHeight] = useState('');
  const rescale = useMutation({
    mutationFn: () => api<Product>(`/v1/products/${p.id}/model/rescale`, { method: 'POST', body: { dimensions: { height: Number(height) } } }),
    onSuccess: setProduct,
  });
  return (
    <section className="card" aria-labelledby="model-h">
      <h2 id="model-h">3D model</h2>
      {p.model?.url ? (
        <div className="model-layout">
          <ModelViewer src={p.model.url} poster={p.thumbnail_url} label={`3D model of ${p.title || p.id}`} />
          <div>
            <ModelWarnings warnings={p.model.warnings ?? []} />
            <ModelFacts model={p.model} />
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
          {p.model_status === 'failed' && <p className="bad-text">{p.error?.message ?? 'Generation failed; the credits were refunded.'}</p>}
          <p className="muted">No 3D model yet.</p>
        </>
      )}
      <Order productId={productId} />
    </section>
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

const fmt = (n: number) => (n < 1 ? n.toFixed(3) : n.toFixed(2));

/** Size, weight and how the model was made, with how well it agrees with its photos. */
function ModelFacts({ model }: { model: NonNullable<Product['model']> }) {
  const q = model.quality;
  const d = model.dimensions;
  return (
    <dl className="facts">
      {d && (
        <>
          <dt>Size</dt>
          <dd>
            {fmt(d.width)} × {fmt(d.height)} × {fmt(d.depth)} m (w × h × d)
          </dd>
        </>
      )}
      {model.triangles != null && (
        <>
          <dt>Triangles</dt>
          <dd>{model.triangles.toLocaleString()}</dd>
        </>
      )}
      {model.bytes != null && (
        <>
          <dt>File</dt>
          <dd>{fileSize(model.bytes)}</dd>
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
  );
}
