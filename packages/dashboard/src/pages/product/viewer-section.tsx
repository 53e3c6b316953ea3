import { useMutation } from '@tanstack/react-query';
import { createElement, useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useLoadedProduct, useSetProduct } from '../../api/products';
import type { CallToAction, Hotspot, Product, ViewerSettings } from '../../api/types';
import { loadViewer } from '../../components/model-viewer';
import { ErrorBox } from '../../components/states';

type Hit = { position: { x: number; y: number; z: number }; normal: { x: number; y: number; z: number } } | null;
type Viewer = HTMLElement & { positionAndNormalFromPoint?: (x: number, y: number) => Hit };

const MAX_HOTSPOTS = 20;
const EMPTY_CTA: CallToAction = { title: '', subtitle: '', price: '', button_label: 'Buy', url: 'https://' };
const round = (v: number) => Math.round(v * 10_000) / 10_000;

/** DESIGN section 15, the "Viewer" panel: what the shop turns on in the viewer, beside the live model with it. */
export function ViewerSection({ productId }: { productId: string }) {
  const p = useLoadedProduct(productId);
  const setProduct = useSetProduct(productId);
  const model = p.model;
  // The API hands the model's settings back as a free-form object; they are what PATCH …/model saved, ViewerSettings.
  const saved = (model?.settings ?? {}) as ViewerSettings;
  const variants = (model?.variants ?? []).map((v) => v.name);
  const [s, setS] = useState<ViewerSettings>(saved);
  const [ctaOn, setCtaOn] = useState(!!saved.ar_call_to_action);
  const [cta, setCta] = useState<CallToAction>(saved.ar_call_to_action ?? EMPTY_CTA);
  const [viewerReady, setViewerReady] = useState(false);
  const viewer = useRef<Viewer | null>(null);
  useEffect(() => {
    loadViewer().then(() => setViewerReady(true), () => undefined);
  }, []);
  const hotspots = s.hotspots ?? [];
  const set = (patch: ViewerSettings) => setS((all) => ({ ...all, ...patch }));
  const setHotspot = (id: string, patch: Partial<Hotspot>) => set({ hotspots: hotspots.map((h) => (h.id === id ? { ...h, ...patch } : h)) });

  const save = useMutation({
    mutationFn: () => {
      const settings: ViewerSettings = {
        default_variant: s.default_variant || null,
        variant_picker: !!s.variant_picker,
        hotspots: hotspots.map((h) => ({ ...h, text: h.text || undefined })),
        show_dimensions: !!s.show_dimensions,
        units: s.units ?? null,
        ar_placement: s.ar_placement ?? 'floor',
        ar_scale: s.ar_scale ?? 'auto',
        ar_call_to_action: ctaOn ? { ...cta, subtitle: cta.subtitle || undefined, price: cta.price || undefined } : null,
      };
      return api<Product>(`/v1/products/${p.id}/model`, { method: 'PATCH', body: { settings } });
    },
    onSuccess: setProduct,
  });

  // A click on the model places a hotspot where it lands, in the model's metres.
  const place = (e: React.MouseEvent) => {
    const hit = viewer.current?.positionAndNormalFromPoint?.(e.clientX, e.clientY);
    if (!hit || hotspots.length >= MAX_HOTSPOTS) return;
    const n = hotspots.length + 1;
    const id = `h${Date.now().toString(36)}`;
    const { position: a, normal: b } = hit;
    set({ hotspots: [...hotspots, { id, position: [a.x, a.y, a.z].map(round), normal: [b.x, b.y, b.z].map(round), label: `Hotspot ${n}` }] });
  };
  if (!model?.url) return null;
  const onSave = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="card" aria-labelledby="viewer-h">
      <h2 id="viewer-h">Viewer</h2>
      <div className="model-layout">
        <div onClick={place}>
          {viewerReady &&
            createElement(
              'model-viewer',
              {
                ref: viewer,
                class: 'viewer',
                src: model.url,
                alt: `Viewer preview of ${p.title || p.id}`,
                'camera-controls': '',
                'shadow-intensity': '1',
                'interaction-prompt': 'none',
                'variant-name': s.default_variant || undefined,
              },
              hotspots.map((h) =>
                createElement('span', { key: h.id, slot: `hotspot-${h.id}`, className: 'viewer-hotspot', 'data-position': h.position.map((v) => `${v}m`).join(' '), 'data-normal': h.normal.join(' ') }, h.label),
              ),
            )}
          <p className="small muted">Click on the model to add a hotspot there ({hotspots.length} of {MAX_HOTSPOTS}).</p>
        </div>
        <form onSubmit={onSave}>
          {variants.length > 0 && (
            <fieldset>
              <legend>Variants</legend>
              <p className="small muted">{variants.join(', ')}</p>
              <label className="field">
                <span>Default variant</span>
                <select value={s.default_variant ?? ''} onChange={(e) => set({ default_variant: e.target.value || null })}>
                  <option value="">The file’s own look</option>
                  {variants.map((v) => (
                    <option key={v}>{v}</option>
                  ))}
                </select>
              </label>
              <label className="check">
                <input type="checkbox" checked={!!s.variant_picker} onChange={(e) => set({ variant_picker: e.target.checked })} />
                Show the variant picker
              </label>
            </fieldset>
          )}
          <fieldset>
            <legend>Hotspots</legend>
            {hotspots.length === 0 && <p className="small muted">None yet.</p>}
            <ol className="hotspot-list">
              {hotspots.map((h, i) => (
                <li key={h.id}>
                  <label className="field">
                    <span>Label of hotspot {i + 1}</span>
                    <input value={h.label} maxLength={80} required onChange={(e) => setHotspot(h.id, { label: e.target.value })} />
                  </label>
                  <label className="field">
                    <span>Text of hotspot {i + 1}</span>
                    <textarea value={h.text ?? ''} maxLength={280} rows={2} onChange={(e) => setHotspot(h.id, { text: e.target.value })} />
                  </label>
                  <button type="button" className="btn small danger" onClick={() => set({ hotspots: hotspots.filter((x) => x.id !== h.id) })}>
                    Delete hotspot {i + 1}
                  </button>
                </li>
              ))}
            </ol>
          </fieldset>
          <fieldset>
            <legend>Dimensions</legend>
            <label className="check">
              <input type="checkbox" checked={!!s.show_dimensions} onChange={(e) => set({ show_dimensions: e.target.checked })} />
              Show dimensions
            </label>
            <label className="field">
              <span>Units</span>
              <select value={s.units ?? ''} onChange={(e) => set({ units: (e.target.value || null) as ViewerSettings['units'] })}>
                <option value="">From the shopper’s locale</option>
                <option value="metric">Metric</option>
                <option value="imperial">Imperial</option>
              </select>
            </label>
          </fieldset>
          <fieldset>
            <legend>AR</legend>
            <label className="field">
              <span>AR placement</span>
              <select value={s.ar_placement ?? 'floor'} onChange={(e) => set({ ar_placement: e.target.value as 'floor' | 'wall' })}>
                <option value="floor">Floor</option>
                <option value="wall">Wall</option>
              </select>
            </label>
            <label className="field">
              <span>AR scale</span>
              <select value={s.ar_scale ?? 'auto'} onChange={(e) => set({ ar_scale: e.target.value as 'auto' | 'fixed' })}>
                <option value="auto">Auto (the shopper can resize)</option>
                <option value="fixed">Fixed (real size only)</option>
              </select>
            </label>
            <label className="check">
              <input type="checkbox" checked={ctaOn} onChange={(e) => setCtaOn(e.target.checked)} />
              Call to action in AR
            </label>
            {ctaOn && (
              <>
                {(
                  [
                    ['title', 'Title', 60],
                    ['subtitle', 'Subtitle', 60],
                    ['price', 'Price', 20],
                    ['button_label', 'Button label', 20],
                    ['url', 'Shop URL (https)', 2048],
                  ] as const
                ).map(([key, label, max]) => (
                  <label className="field" key={key}>
                    <span>{label}</span>
                    <input
                      value={cta[key] ?? ''}
                      maxLength={max}
                      required={key !== 'subtitle' && key !== 'price'}
                      type={key === 'url' ? 'url' : 'text'}
                      onChange={(e) => setCta((c) => ({ ...c, [key]: e.target.value }))}
                    />
                  </label>
                ))}
              </>
            )}
          </fieldset>
          <button type="submit" className="btn primary" disabled={save.isPending}>
            Save viewer settings
          </button>
          {save.isSuccess && !save.isPending && (
            <p className="small muted" role="status">
              Saved.
            </p>
          )}
          {save.error && <ErrorBox error={save.error} />}
        </form>
      </div>
    </section>
  );
}
