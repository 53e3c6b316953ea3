import { useLoadedProduct } from '../../api/products';
import type { ModelDelivery } from '../../api/types';
import { Table } from '../../components/table';

/** A file's size as people read it: KB below a megabyte, never 0 KB. */
export const fileSize = (bytes: number) => (bytes < 1e6 ? `${Math.max(1, Math.round(bytes / 1e3))} KB` : `${(bytes / 1e6).toFixed(1)} MB`);
const fidelity = (ssim: number | null, usdz: boolean) =>
  ssim === null ? 'unchecked' : ssim >= 1 ? (usdz ? 'written from the master unchanged' : 'the master itself') : `SSIM ${ssim.toFixed(3)}`;

const ROWS: { key: Exclude<keyof ModelDelivery, 'usdz_variants'>; label: string; use: string }[] = [
  { key: 'web', label: 'Web', use: 'desktops' },
  { key: 'mobile', label: 'Mobile', use: 'phones, slow or data-saving connections' },
  { key: 'usdz', label: 'USDZ', use: 'AR Quick Look on iOS' },
];

/** The three files a ready model is served as, their sizes and how closely each still looks like the master. */
export function DeliverySection({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  const d = p.model?.delivery;
  if (!d) return null;
  const over = new Set((p.model?.warnings ?? []).filter((w) => w.code === 'over_budget').map((w) => w.delivery));
  return (
    <section className="card" aria-labelledby="delivery-h">
      <h2 id="delivery-h">Delivery</h2>
      <p className="muted small">
        Made from the master and compared with it from 8 rendered views; 1.000 is identical, the floor is 0.950.
        {p.model?.master_url && (
          <>
            {' '}
            <a href={p.model.master_url}>Download the master</a>.
          </>
        )}
      </p>
      <Table caption="Delivered files" columns={['File', 'For', { label: 'Size', num: true }, { label: 'Triangles', num: true }, { label: 'Textures', num: true }, 'Fidelity']}>
        {ROWS.map(({ key, label, use }) => {
          const f = d[key];
          const glb = 'triangles' in f ? f : null;
          return (
            <tr key={key}>
              <td>
                <a href={f.url}>{label}</a>
                {over.has(key) && <span className="muted small"> · over budget</span>}
              </td>
              <td>{use}</td>
              <td className="num">{fileSize(f.bytes)}</td>
              <td className="num">{glb ? glb.triangles.toLocaleString() : '—'}</td>
              <td className="num">{glb ? (glb.max_texture_px ? `${glb.max_texture_px} px` : 'none') : '—'}</td>
              <td>{fidelity(f.ssim, key === 'usdz')}</td>
            </tr>
          );
        })}
      </Table>
    </section>
  );
}
