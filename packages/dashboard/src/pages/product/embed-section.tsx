import { Link } from 'react-router-dom';
import { useLoadedProduct } from '../../api/products';
import { CopyButton } from '../../components/copy-button';

/** The snippet that puts the product on a shop's page. */
export function EmbedSection({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
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
