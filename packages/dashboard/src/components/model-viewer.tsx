import { createElement, useEffect, useState } from 'react';

let loading: Promise<unknown> | null = null;
/** The embed bundle carries model-viewer; the dashboard uses the same viewer shoppers get. */
export function loadViewer() {
  loading ??= import(/* @vite-ignore */ `${window.location.origin}/embed.js`).catch((e) => {
    loading = null;
    throw e;
  });
  return loading;
}

export function ModelViewer({ src, poster, label }: { src: string; poster: string | null; label: string }) {
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  useEffect(() => {
    loadViewer().then(
      () => setState('ready'),
      () => setState('error'),
    );
  }, []);
  if (state === 'error') return <p className="muted">The 3D viewer could not be loaded.</p>;
  return createElement('model-viewer', {
    class: 'viewer',
    src,
    poster: poster ?? undefined,
    alt: label,
    'camera-controls': '',
    'auto-rotate': '',
    'shadow-intensity': '1',
    'interaction-prompt': 'none',
  });
}
