import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { useSession } from '../api/session';
import { IN_FLIGHT } from '../api/products';
import type { Product, ProductList, TagList } from '../api/types';
import { AddProducts } from '../components/add-products';
import { Badge, Empty, ErrorBox, Loading, Pager, Progress } from '../components/states';
import { modelLabel, modelTone, stepLabel, statusTone } from '../components/status';
import { useTitle } from '../components/use-title';

const LIMIT = 24;

export function ProductsPage() {
  const { orgId } = useSession();
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [modelStatus, setModelStatus] = useState('');
  const [tag, setTag] = useState('');
  const [notReady, setNotReady] = useState(false);
  const [offset, setOffset] = useState(0);
  useTitle('Products');
  // Typing waits for a pause before it asks the API.
  useEffect(() => {
    const t = setTimeout(() => {
      setSearch(q.trim());
      setOffset(0);
    }, 300);
    return () => clearTimeout(t);
  }, [q]);

  const query = { org_id: orgId, q: search, status, model_status: modelStatus, tag, channel_ready: notReady ? false : undefined, limit: LIMIT, offset };
  const products = useQuery({
    queryKey: ['products', query],
    queryFn: () => api<ProductList>('/v1/products', { query }),
    // While anything processes, poll every 2 s so progress moves on screen.
    refetchInterval: (qr) => (qr.state.data?.data.some(IN_FLIGHT) ? 2000 : false),
  });
  const tags = useQuery({
    queryKey: ['tags', orgId],
    queryFn: () => api<TagList>('/v1/products/tags', { query: { org_id: orgId, limit: 100 } }),
  });
  const filtered = !!(search || status || modelStatus || tag || notReady);

  return (
    <>
      <div className="page-head">
        <h1>Products</h1>
        <AddProducts />
      </div>
      <div className="filters" role="search">
        <label className="field inline grow">
          <span>Search</span>
          <input type="search" value={q} placeholder="Title or custom id" onChange={(e) => setQ(e.target.value)} />
        </label>
        <label className="field inline">
          <span>Status</span>
          <select value={status} onChange={(e) => (setStatus(e.target.value), setOffset(0))}>
            <option value="">Any</option>
            <option value="draft">Draft</option>
            <option value="published">Published</option>
            <option value="archived">Archived</option>
          </select>
        </label>
        <label className="field inline">
          <span>3D model</span>
          <select value={modelStatus} onChange={(e) => (setModelStatus(e.target.value), setOffset(0))}>
            <option value="">Any</option>
            <option value="none">None</option>
            <option value="queued">Queued</option>
            <option value="generating">Generating</option>
            <option value="ready">Ready</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <label className="field inline">
          <span>Tag</span>
          <select value={tag} onChange={(e) => (setTag(e.target.value), setOffset(0))}>
            <option value="">Any</option>
            {tags.data?.data.map((t) => (
              <option key={t.tag} value={t.tag}>
                {t.tag} ({t.count})
              </option>
            ))}
          </select>
        </label>
        <label className="check filter-check" title="Products with an image that failed a rule of its channel preset when last checked">
          <input type="checkbox" checked={notReady} onChange={(e) => (setNotReady(e.target.checked), setOffset(0))} />
          Not channel-ready
        </label>
      </div>
      {products.isPending ? (
        <Loading label="Loading products…" />
      ) : products.error ? (
        <ErrorBox error={products.error} onRetry={() => products.refetch()} />
      ) : products.data.total === 0 && !filtered ? (
        <Empty title="Add your first product">
          <p>
            Drop a few photos of one product taken from different sides (eight to twenty-four work best) into <strong>Add products</strong>.
            Plinth cuts each photo out, shows you the price in credits before anything is charged, then builds a 3D model you can
            review and publish.
          </p>
          <p className="muted">Prefer code? Create a key under API keys and POST your image URLs to /v1/products.</p>
        </Empty>
      ) : products.data.data.length === 0 ? (
        <Empty title="No products match">
          <p>Try another search or clear the filters.</p>
        </Empty>
      ) : (
        <>
          <p className="muted small" aria-live="polite">
            {products.data.total} product{products.data.total === 1 ? '' : 's'}
          </p>
          <ul className="grid" aria-label="Products">
            {products.data.data.map((p) => (
              <ProductCard key={p.id} product={p} />
            ))}
          </ul>
          <Pager total={products.data.total} limit={LIMIT} offset={offset} onChange={setOffset} />
        </>
      )}
    </>
  );
}

function ProductCard({ product: p }: { product: Product }) {
  const busy = IN_FLIGHT(p);
  const thumb = p.thumbnail_url ?? p.images.find((i) => i.thumbnail_url)?.thumbnail_url ?? null;
  return (
    <li className="card product-card">
      <Link to={`/products/${p.id}`} className="thumb-link">
        <div className="thumb">{thumb ? <img src={thumb} alt="" loading="lazy" /> : <span className="muted small">No image yet</span>}</div>
        <span className="product-title">{p.title || p.custom_id || p.id}</span>
      </Link>
      <div className="badges">
        <Badge tone={statusTone(p.status)}>{p.status}</Badge>
        <Badge tone={modelTone(p.model_status)}>{modelLabel(p.model_status)}</Badge>
      </div>
      {busy && (
        <div className="card-progress">
          <Progress value={p.progress} label={`Progress of ${p.title || p.id}`} />
          <span className="small muted">
            {stepLabel(p.step)} · {p.progress ?? 0}%
          </span>
        </div>
      )}
      {p.error && <p className="small bad-text">{p.error.message}</p>}
      {p.tags.length > 0 && (
        <ul className="tags" aria-label="Tags">
          {p.tags.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      )}
    </li>
  );
}
