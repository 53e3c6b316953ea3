/**
 * The element sizes itself like an image: block-level, full width of its container, square unless
 * the host page says otherwise (a height, or its own aspect-ratio, wins over the default).
 * Colours come from custom properties so a shop can match its theme without reaching into parts.
 */
const STYLE = `
:host {
  display: block;
  position: relative;
  aspect-ratio: 1 / 1;
  min-height: 120px;
  overflow: hidden;
  contain: content;
  color: var(--service-model-color, #57606a);
  background: var(--service-model-background, #f4f4f1);
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
}
:host([hidden]) { display: none; }
.frame { position: absolute; inset: 0; }
model-viewer {
  display: block;
  width: 100%;
  height: 100%;
  background: transparent;
  --poster-color: transparent;
}
.frame:not(.has-viewer) model-viewer { visibility: hidden; }
.status {
  position: absolute;
  inset: 0;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: 10px;
  padding: 16px;
  text-align: center;
  pointer-events: none;
}
.status[hidden] { display: none; }
.status button { pointer-events: auto; }
.spinner {
  width: 22px;
  height: 22px;
  border-radius: 50%;
  border: 2px solid currentColor;
  border-right-color: transparent;
  opacity: 0.45;
  animation: spin 0.9s linear infinite;
}
.spinner[hidden], .retry[hidden], .message:empty { display: none; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation-duration: 3s; } }
.retry, .ar-button {
  font: inherit;
  color: inherit;
  background: #fff;
  border: 1px solid rgb(0 0 0 / 12%);
  border-radius: 999px;
  padding: 6px 14px;
  cursor: pointer;
}
.ar-button {
  position: absolute;
  right: 12px;
  bottom: 12px;
  display: inline-flex;
  align-items: center;
  gap: 6px;
  color: #1f2328;
  box-shadow: 0 1px 4px rgb(0 0 0 / 12%);
}
.ar-button svg { width: 18px; height: 18px; }
.qr-button[hidden], .qr[hidden], .progress[hidden], .poster[hidden] { display: none; }
.poster { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; }
.qr {
  position: absolute;
  right: 12px;
  bottom: 56px;
  width: 180px;
  padding: 12px;
  background: #fff;
  color: #1f2328;
  border-radius: 12px;
  box-shadow: 0 2px 12px rgb(0 0 0 / 18%);
  text-align: center;
  font-size: 13px;
}
.qr svg { display: block; width: 100%; height: auto; }
.qr button { margin-top: 6px; border: 0; background: none; color: inherit; text-decoration: underline; cursor: pointer; font: inherit; }
.progress { position: absolute; left: 0; right: 0; bottom: 0; height: 3px; background: rgb(0 0 0 / 8%); }
.progress span { display: block; height: 100%; width: 0; background: var(--service-model-accent, #1f2328); transition: width 0.2s; }
`;

/** A cube in a frame: the common "view in your space" mark, drawn here so nothing is fetched. */
const AR_ICON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.6" aria-hidden="true">' +
  '<path d="M12 3l7 4v10l-7 4-7-4V7z"/><path d="M5 7l7 4 7-4M12 11v10"/></svg>';

/**
 * model-viewer gets every AR mode; it picks the one the device supports (WebXR on Android Chrome,
 * Scene Viewer elsewhere on Android, Quick Look on iOS) and hides the AR button where none works.
 */
export const SHADOW_HTML =
  `<style>${STYLE}</style>` +
  '<div class="frame" part="frame">' +
  '<img class="poster" part="poster" hidden>' +
  '<model-viewer part="viewer" ar ar-modes="webxr scene-viewer quick-look" camera-controls touch-action="pan-y" ' +
  'shadow-intensity="1" environment-image="neutral">' +
  `<button class="ar-button" part="ar-button" slot="ar-button" type="button">${AR_ICON}<span>View in your space</span></button>` +
  '</model-viewer>' +
  `<button class="ar-button qr-button" part="qr-button" type="button" aria-expanded="false" hidden>${AR_ICON}<span>View in your space</span></button>` +
  '<div class="qr" part="qr" role="dialog" aria-label="Open on your phone" hidden><div class="code"></div>' +
  '<p>Scan with your phone to see it in your space.</p><button type="button">Close</button></div>' +
  '<div class="progress" part="progress" role="progressbar" aria-label="Loading the 3D model" aria-valuemin="0" aria-valuemax="100" hidden><span></span></div>' +
  '<div class="status" part="status" role="status" aria-live="polite">' +
  '<span class="spinner" part="spinner" aria-hidden="true"></span>' +
  '<span class="message" part="message"></span>' +
  '<button class="retry" part="retry" type="button" hidden>Try again</button>' +
  '</div></div>';
