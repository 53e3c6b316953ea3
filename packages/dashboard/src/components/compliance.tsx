import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Compliance, ComplianceCheck, Image } from '../api/types';
import { Badge, ErrorBox } from './states';

/** The channels of DESIGN section 16, as the finishing panel and the exports page offer them. */
export const PRESETS = [
  { value: 'amazon_main', label: 'Amazon main image', channel: 'Amazon', fill: 0.88, background: '#ffffff' },
  { value: 'google_shopping', label: 'Google Shopping', channel: 'Google Shopping', fill: 0.85, background: '#ffffff' },
  { value: 'ebay', label: 'eBay', channel: 'eBay', fill: 0.85, background: '#ffffff' },
  { value: 'shopify', label: 'Shopify', channel: 'Shopify', fill: 0.84, background: null },
  { value: 'square_1080', label: 'Square 1080 px', channel: 'A 1080 px square', fill: 0.8, background: null },
] as const;

export type PresetValue = (typeof PRESETS)[number]['value'];

export const presetOf = (value: string | null | undefined) => PRESETS.find((p) => p.value === value) ?? null;

const pct = (n: number) => `${Math.round(n * 100)}%`;
const mb = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`;

/** What a failed check means, in words a reviewer can act on. */
export function checkInWords(check: ComplianceCheck, preset: string | null): string {
  const channel = presetOf(preset)?.channel ?? 'The channel';
  const m = check.measured as Record<string, unknown> & number & string;
  const r = check.required as Record<string, unknown> & number & string;
  switch (check.code) {
    case 'fill': {
      const { min, max } = r as unknown as { min: number; max: number };
      const fill = Number(m);
      return fill < min
        ? `The product fills ${pct(fill)} of the image; ${channel} needs ${pct(min)}.`
        : `The product fills ${pct(fill)} of the image; ${channel} allows at most ${pct(max)}.`;
    }
    case 'size': {
      const s = m as unknown as { width: number; height: number };
      const need = r as unknown as { width: number; height: number };
      return `The image is ${s.width} × ${s.height} px; ${channel} needs ${need.width} × ${need.height}.`;
    }
    case 'background': {
      const band = m as unknown as { outer_band_pure_white?: number; outer_band_uniform?: number };
      if (band.outer_band_pure_white !== undefined) {
        return `Only ${pct(band.outer_band_pure_white)} of the image's outer edge is pure white; ${channel} needs all of it.`;
      }
      return `The image's outer edge is not one even colour (${pct(band.outer_band_uniform ?? 0)} is): ${channel} refuses borders.`;
    }
    case 'format':
      return `The file is ${String(m).toUpperCase()}; ${channel} needs ${String(r).toUpperCase()}.`;
    case 'bytes':
      return `The file is ${mb(Number(m))}; ${channel} allows ${mb((r as unknown as { max: number }).max)}.`;
    case 'not_cropped': {
      const edges = (m as unknown as { edges_touched: string[] }).edges_touched;
      return `The product touches the ${edges.join(' and ')} edge of its photo: it is cut off.`;
    }
    case 'cutout':
      return `The cut-out is ${String(m)}, not ok: check it before using this image.`;
  }
}

function summary(c: Compliance): string {
  const channel = presetOf(c.preset)?.channel;
  if (c.passed) return channel ? `Ready for ${channel}` : 'Passes the basic checks';
  const failed = c.checks.filter((x) => !x.passed).length;
  return `${failed} rule${failed === 1 ? '' : 's'} failed`;
}

/** A tile's small badge: passed, failed, or not measured yet. */
export function ComplianceBadge({ compliance }: { compliance?: Compliance | null }) {
  if (!compliance) return null;
  return <Badge tone={compliance.passed ? 'ok' : 'bad'}>{summary(compliance)}</Badge>;
}

/** The selected image's compliance, each failed rule in words, and a way to measure it now. */
export function ComplianceReport({ productId, image, unsaved }: { productId: string; image: Image; unsaved: boolean }) {
  const client = useQueryClient();
  const check = useMutation({
    mutationFn: () => api<Compliance>(`/dashboard/api/products/${productId}/images/${image.image_id}/compliance`, { method: 'POST' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['product', productId] }),
  });
  const c = image.compliance ?? null;
  return (
    <section className="compliance" aria-label={`Channel rules, image ${image.position + 1}`}>
      <div className="compliance-head">
        {c ? <ComplianceBadge compliance={c} /> : <Badge tone="muted">Not checked yet</Badge>}
        <button type="button" className="btn small" disabled={check.isPending || unsaved} onClick={() => check.mutate()}>
          {check.isPending ? 'Checking…' : c ? 'Check again' : 'Check against the rules'}
        </button>
      </div>
      {unsaved && <p className="small muted">Save the review to check these settings.</p>}
      {c && !c.passed && (
        <ul className="compliance-fails">
          {c.checks
            .filter((x) => !x.passed)
            .map((x) => (
              <li key={x.code} className="small">
                {checkInWords(x, c.preset)}
              </li>
            ))}
        </ul>
      )}
      {check.error && <ErrorBox error={check.error} />}
    </section>
  );
}
