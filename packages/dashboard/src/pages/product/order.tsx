import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { useLoadedProduct, useSetProduct } from '../../api/products';
import type { Product, Quote } from '../../api/types';
import { ErrorBox } from '../../components/states';

/** The missing half: a model for an images-only product, renders for a model-only one; quote first. */
export function Order({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  const setProduct = useSetProduct(productId);
  const client = useQueryClient();
  const [quote, setQuote] = useState<Quote | null>(null);
  const wantsModel = p.model_status === 'none' || p.model_status === 'failed';
  const wantsImages = p.images_status === 'none' && p.model_status === 'ready';
  const ask = useMutation({ mutationFn: () => api<Quote>(`/v1/products/${p.id}/order`, { method: 'POST', body: {} }), onSuccess: setQuote });
  const commit = useMutation({
    mutationFn: () => api<Product>('/v1/products', { method: 'POST', body: { resume_token: quote!.resume_token } }),
    onSuccess: (next) => {
      setQuote(null);
      setProduct(next);
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
