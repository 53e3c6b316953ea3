import { useMutation } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, withQuery } from '../../api/client';
import { useLoadedProduct, useSetProduct } from '../../api/products';
import type { Image, ImageSettings, PreviewSettings, Product, ReviewStatus } from '../../api/types';
import { ComplianceBadge, ComplianceReport, PRESETS, presetOf, type PresetValue } from '../../components/compliance';
import { Badge, ErrorBox } from '../../components/states';
import { reviewTone } from '../../components/status';

const DEFAULTS: Required<Pick<ImageSettings, 'background' | 'shadow' | 'padding'>> = { background: '#ffffff', shadow: 'soft', padding: 0.08 };

/** The product's images: accept or reject each, and the finishing every one of them is exported with. */
export function ImagesSection({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  const setProduct = useSetProduct(productId);
  const images = useMemo(() => [...p.images].sort((a, b) => a.position - b.position), [p.images]);
  const [decisions, setDecisions] = useState<Record<string, ReviewStatus>>({});
  const first = images.find((i) => i.image_review_status !== 'rejected') ?? images[0];
  // The API hands an image's settings back as a free-form object; they are what the review saved, ImageSettings.
  const start = { ...DEFAULTS, ...((first?.settings ?? {}) as ImageSettings) };
  const [background, setBackground] = useState(start.background);
  const [shadow, setShadow] = useState(start.shadow);
  const [padding, setPadding] = useState(start.padding);
  const [preset, setPreset] = useState<PresetValue | ''>(start.preset ?? '');
  const [fill, setFill] = useState(start.fill ?? presetOf(start.preset)?.fill ?? 1 - 2 * (start.padding ?? 0));
  const [selected, setSelected] = useState<string | null>(first?.image_id ?? null);
  const finishing = preset ? { preset, background, shadow, fill } : { background, shadow, padding: padding ?? undefined };
  const settingsDirty =
    background !== start.background || shadow !== start.shadow || padding !== start.padding || preset !== (start.preset ?? '') || (!!preset && fill !== start.fill);
  const dirty = Object.keys(decisions).length > 0 || settingsDirty;
  const choosePreset = (value: PresetValue | '') => {
    setPreset(value);
    const p = presetOf(value);
    if (p) setFill(p.fill);
    if (p?.background) setBackground(p.background);
  };
  const save = useMutation({
    mutationFn: () =>
      api<Product>(`/v1/products/${p.id}/review`, {
        method: 'POST',
        body: {
          images: images.map((i) => ({
            image_id: i.image_id,
            ...(decisions[i.image_id] && { decision: decisions[i.image_id] }),
            // A preset brings its own fill: padding is cleared, as fill replaces it.
            settings: preset ? { preset, background, shadow, fill, padding: null } : { preset: null, fill: null, background, shadow, padding },
          })),
        },
      }),
    onSuccess: (next) => {
      setProduct(next);
      setDecisions({});
    },
  });
  if (images.length === 0) {
    return (
      <section className="card" aria-labelledby="images-h">
        <h2 id="images-h">Images</h2>
        <p className="muted">{p.images_status === 'none' ? 'This product has no photos. Order renders of the model below.' : 'No images yet.'}</p>
      </section>
    );
  }
  const preview = images.find((i) => i.image_id === selected) ?? first;
  const onSave = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="card" aria-labelledby="images-h">
      <div className="section-head">
        <h2 id="images-h">Images</h2>
        <span className="muted small">
          {images.filter((i) => (decisions[i.image_id] ?? i.image_review_status) === 'accepted').length} accepted ·{' '}
          {images.filter((i) => (decisions[i.image_id] ?? i.image_review_status) === 'rejected').length} rejected
        </span>
      </div>
      <ul className="image-grid">
        {images.map((img) => (
          <ImageTile
            key={img.image_id}
            image={img}
            decision={decisions[img.image_id] ?? img.image_review_status}
            selected={img.image_id === preview?.image_id}
            onSelect={() => setSelected(img.image_id)}
            onDecide={(d) => setDecisions((all) => ({ ...all, [img.image_id]: d }))}
          />
        ))}
      </ul>
      <form className="finishing" onSubmit={onSave}>
        <fieldset>
          <legend>Finishing</legend>
          <label className="field">
            <span>Channel</span>
            <select value={preset} onChange={(e) => choosePreset(e.target.value as PresetValue | '')}>
              <option value="">No channel preset</option>
              {PRESETS.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Background</span>
            <span className="color-row">
              <input
                type="color"
                aria-label="Background colour"
                value={background === 'transparent' ? '#ffffff' : background}
                disabled={background === 'transparent'}
                onChange={(e) => setBackground(e.target.value)}
              />
              <label className="check">
                <input
                  type="checkbox"
                  checked={background === 'transparent'}
                  onChange={(e) => setBackground(e.target.checked ? 'transparent' : '#ffffff')}
                />
                Transparent
              </label>
            </span>
          </label>
          <label className="field">
            <span>Shadow</span>
            <select value={shadow} onChange={(e) => setShadow(e.target.value as typeof shadow)}>
              <option value="none">None</option>
              <option value="soft">Soft</option>
              <option value="hard">Hard</option>
              <option value="contact">Contact</option>
            </select>
          </label>
          {preset ? (
            <label className="field">
              <span>Product fills {Math.round(fill * 100)}%</span>
              <input type="range" min={0.3} max={0.98} step={0.01} value={fill} onChange={(e) => setFill(Number(e.target.value))} />
            </label>
          ) : (
            <label className="field">
              <span>Padding {Math.round((padding ?? 0) * 100)}%</span>
              <input type="range" min={0} max={0.45} step={0.01} value={padding ?? undefined} onChange={(e) => setPadding(Number(e.target.value))} />
            </label>
          )}
        </fieldset>
        <div className="preview-col">
          <FinishedPreview product={p} image={preview} settings={finishing} />
          {preview && <ComplianceReport productId={p.id} image={preview} unsaved={settingsDirty} />}
        </div>
        <div className="save-row">
          {save.error && <ErrorBox error={save.error} />}
          {save.isSuccess && !dirty && (
            <span role="status" className="small ok-text">
              Review saved
            </span>
          )}
          <button type="submit" className="btn primary" disabled={save.isPending}>
            Save review
          </button>
        </div>
      </form>
    </section>
  );
}

function ImageTile(props: {
  image: Image;
  decision: ReviewStatus;
  selected: boolean;
  onSelect(): void;
  onDecide(d: ReviewStatus): void;
}) {
  const { image: img, decision } = props;
  const name = `Image ${img.position + 1}`;
  return (
    <li className={`image-tile ${decision}${props.selected ? ' selected' : ''}`} aria-label={name}>
      <button type="button" className="image-btn" aria-label={`Preview ${name}`} aria-pressed={props.selected} onClick={props.onSelect}>
        {img.thumbnail_url || img.url ? <img src={img.thumbnail_url ?? img.url ?? ''} alt="" loading="lazy" /> : <span className="muted small">No image</span>}
      </button>
      <div className="image-meta">
        <Badge tone={reviewTone(decision)}>{decision}</Badge>
        <ComplianceBadge compliance={img.compliance} />
        {img.cutout && (
          <span className="small muted" title={`Cut-out by ${img.cutout.method}`}>
            Cut-out {img.cutout.status} · {Math.round(img.cutout.confidence * 100)}%
          </span>
        )}
      </div>
      {img.error && <p className="small bad-text">{img.error.message}</p>}
      <div className="image-actions">
        <button type="button" className="btn small" aria-pressed={decision === 'accepted'} onClick={() => props.onDecide('accepted')}>
          Accept
        </button>
        <button type="button" className="btn small" aria-pressed={decision === 'rejected'} onClick={() => props.onDecide('rejected')}>
          Reject
        </button>
      </div>
    </li>
  );
}

/** The finished image as the export will make it, redrawn by the server while settings change. */
function FinishedPreview({ product, image, settings }: { product: Product; image?: Image; settings: PreviewSettings }) {
  const [debounced, setDebounced] = useState(settings);
  const key = JSON.stringify(settings);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(settings), 250);
    return () => clearTimeout(t);
  }, [key]);
  const [failed, setFailed] = useState(false);
  if (!image) return null;
  const src = withQuery(`/dashboard/api/products/${product.id}/images/${image.image_id}/preview`, debounced);
  return (
    <figure className={`preview${debounced.background === 'transparent' ? ' checker' : ''}`}>
      {failed ? (
        <p className="muted small">The preview could not be drawn for this image.</p>
      ) : (
        <img key={src} src={src} alt="Finished preview" onError={() => setFailed(true)} onLoad={() => setFailed(false)} />
      )}
      <figcaption className="small muted">Preview of image {image.position + 1}</figcaption>
    </figure>
  );
}
