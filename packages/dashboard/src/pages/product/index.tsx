import { Link, useParams } from 'react-router-dom';
import { useProduct } from '../../api/products';
import { ErrorBox, Loading } from '../../components/states';
import { useTitle } from '../../components/use-title';
import { DeliverySection } from './delivery-section';
import { EmbedSection } from './embed-section';
import { ImagesSection } from './images-section';
import { ModelSection } from './model-section';
import { ProductHead } from './product-head';
import { Processing } from './processing';
import { ViewerSection } from './viewer-section';

/**
 * One product, as a set of sections. The page loads the product and polls it while work is in flight; each
 * section reads it by id from the same query (api/products.ts), and writes an answer back there.
 */
export function ProductPage() {
  const { id = '' } = useParams();
  const product = useProduct(id, { poll: true });
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
  return (
    <>
      <p className="crumb">
        <Link to="/products">← Products</Link>
      </p>
      <ProductHead productId={id} />
      <Processing productId={id} />
      <ImagesSection productId={id} />
      <ModelSection productId={id} />
      <DeliverySection productId={id} />
      <ViewerSection productId={id} />
      <EmbedSection productId={id} />
    </>
  );
}
