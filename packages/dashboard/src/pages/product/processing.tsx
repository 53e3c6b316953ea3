import { IN_FLIGHT, useLoadedProduct } from '../../api/products';
import { Progress } from '../../components/states';
import { stepLabel } from '../../components/status';

/** While the server works on the product: its step and progress; after a failure: the reason, as the API wrote it. */
export function Processing({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  return (
    <>
      {IN_FLIGHT(p) && (
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
    </>
  );
}
