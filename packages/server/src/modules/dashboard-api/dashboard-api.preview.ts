import type { Compliance, ImageSettings, PresetName } from '@plinth/media';
import { measureImageCompliance } from '../export/index.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { getProduct } from '../products/index.js';
import { sessionUser } from './dashboard-api.service.js';

/** Small enough to redraw while a slider moves, large enough to judge shadow and padding. */
export const PREVIEW_SIZE = 640;

export interface PreviewSettings {
  background?: string;
  shadow: ImageSettings['shadow'];
  padding?: number;
  preset?: PresetName;
  fill?: number;
}

/**
 * The finished image as an export would make it, at preview size, for settings that are not saved
 * yet. The product must be in the session's reach (404 otherwise, as on /v1).
 */
export async function finishedPreview(deps: Deps, principal: Principal, productId: string, imageId: string, settings: PreviewSettings) {
  sessionUser(principal);
  const product = await getProduct(deps, principal, productId);
  const image = product.images.find((i) => i.id === imageId);
  if (!image) throw notFound('image');
  if (!image.storageKey) throw new AppError('conflict', 'This image has no stored original to finish.', { reason: 'no_original' });
  const [original, mask] = await Promise.all([
    deps.storage.getBuffer(image.storageKey),
    image.maskKey ? deps.storage.getBuffer(image.maskKey) : Promise.resolve(null),
  ]);
  const background = settings.background ?? (settings.preset ? undefined : '#ffffff');
  const format = background === 'transparent' ? 'png' : 'jpeg';
  return deps.media.run('finish.image', { original, mask, settings: { ...settings, background, format }, size: PREVIEW_SIZE });
}

/** The image's compliance with its saved settings, finished at full size now (cached like an export's). */
export async function imageCompliance(deps: Deps, principal: Principal, productId: string, imageId: string): Promise<Compliance> {
  sessionUser(principal);
  const product = await getProduct(deps, principal, productId);
  const image = product.images.find((i) => i.id === imageId);
  if (!image) throw notFound('image');
  const compliance = await measureImageCompliance(deps, { id: product.id, org_id: product.orgId, custom_id: product.customId }, imageId);
  if (!compliance) throw new AppError('conflict', 'This image has no stored original to finish.', { reason: 'no_original' });
  return compliance;
}
