export type Tone = 'ok' | 'warn' | 'bad' | 'busy' | 'muted';

const STEPS: Record<string, string> = {
  queued: 'Waiting to start',
  fetching: 'Fetching',
  cutting_out: 'Cutting out',
  finding_cameras: 'Finding cameras',
  carving: 'Carving',
  texturing: 'Texturing',
  storing_model: 'Storing the model',
  rendering: 'Rendering',
};

export const stepLabel = (step: string | null) => (step ? (STEPS[step] ?? step.replace(/_/g, ' ')) : 'Waiting to start');

export const statusTone = (s: string): Tone => (s === 'published' ? 'ok' : s === 'archived' ? 'muted' : 'warn');

export const modelTone = (s: string): Tone => (s === 'ready' ? 'ok' : s === 'failed' ? 'bad' : s === 'none' ? 'muted' : 'busy');

export const reviewTone = (s: string): Tone => (s === 'accepted' ? 'ok' : s === 'rejected' ? 'bad' : 'muted');

const MODEL_LABELS: Record<string, string> = {
  none: 'no 3D model',
  queued: '3D queued',
  generating: '3D generating',
  ready: '3D ready',
  failed: '3D failed',
};

export const modelLabel = (s: string) => MODEL_LABELS[s] ?? `3D ${s}`;
