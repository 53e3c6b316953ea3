import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { productKey, useLoadedProduct } from '../../api/products';
import { useSession } from '../../api/session';
import type { PublishResult } from '../../api/types';
import { Badge, ErrorBox } from '../../components/states';
import { modelLabel, modelTone, statusTone } from '../../components/status';

/** The product's name, its states, and publishing. */
export function ProductHead({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  return (
    <div className="page-head">
      <div>
        <h1>{p.title || p.custom_id || p.id}</h1>
        <div className="badges">
          <Badge tone={statusTone(p.status)}>{p.status}</Badge>
          <Badge tone={modelTone(p.model_status)}>{modelLabel(p.model_status)}</Badge>
          <span className="muted small mono">{p.id}</span>
        </div>
      </div>
      <PublishButton productId={productId} />
    </div>
  );
}

function PublishButton({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  const { orgId } = useSession();
  const client = useQueryClient();
  const published = p.status === 'published';
  const m = useMutation({
    mutationFn: () =>
      api<PublishResult>('/v1/products/publish', {
        method: 'POST',
        body: { ids: [p.id], status: published ? 'draft' : 'published', org_id: orgId },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: productKey(productId) }),
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
