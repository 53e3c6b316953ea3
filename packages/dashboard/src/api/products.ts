import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api } from './client';
import type { Product } from './types';

/** Work the server is still doing on a product; pages that show it poll until it is over. */
export const IN_FLIGHT = (p: Pick<Product, 'model_status' | 'images_status'>) =>
  p.model_status === 'queued' || p.model_status === 'generating' || p.images_status === 'ingesting' || p.images_status === 'ordered';

export const productKey = (id: string) => ['product', id] as const;

/**
 * One product, from the cache entry every part of its page shares. The page polls (`poll`) every 2 s while
 * work is in flight; a section reads the same entry and never fetches on its own when it mounts, so the
 * page still asks the server once per tick however many sections it shows.
 */
export function useProduct(id: string, { poll = false } = {}) {
  return useQuery({
    queryKey: productKey(id),
    queryFn: () => api<Product>(`/v1/products/${id}`),
    refetchInterval: poll ? (q) => (q.state.data && IN_FLIGHT(q.state.data) ? 2000 : false) : false,
    staleTime: poll ? 0 : Infinity,
  });
}

/** For a section of the product page, which is shown only once the page has the product: the product, kept current. */
export function useLoadedProduct(id: string): Product {
  const { data } = useProduct(id);
  if (!data) throw new Error(`The product ${id} was read before its page loaded it.`);
  return data;
}

/** Puts the product an answer carries into the shared entry, so every section shows it at once. */
export function useSetProduct(id: string) {
  const client = useQueryClient();
  return useCallback((next: Product) => client.setQueryData(productKey(id), next), [client, id]);
}
