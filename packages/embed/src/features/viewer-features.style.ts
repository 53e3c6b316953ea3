/** Styles of the section 15 features, added to the element's shadow root once. */
export const FEATURE_STYLE = `
.variants { position: absolute; left: 12px; bottom: 12px; display: flex; flex-wrap: wrap; gap: 6px; max-width: 60%; }
.variants label { display: inline-flex; align-items: center; gap: 4px; padding: 4px 10px; background: #fff; color: #1f2328; border-radius: 999px; box-shadow: 0 1px 4px rgb(0 0 0 / 12%); cursor: pointer; }
.variants label:has(:checked) { outline: 2px solid var(--service-model-accent, #1f2328); }
.variants input { margin: 0; accent-color: var(--service-model-accent, #1f2328); }
.hotspot { --min-hotspot-opacity: 0.3; max-width: 200px; }
.hotspot button { font: inherit; font-size: 12px; color: #1f2328; background: #fff; border: 1px solid rgb(0 0 0 / 15%); border-radius: 999px; padding: 3px 10px 3px 6px; cursor: pointer; box-shadow: 0 1px 4px rgb(0 0 0 / 15%); white-space: nowrap; }
.hotspot button::before { content: ""; display: inline-block; width: 8px; height: 8px; margin-right: 6px; border-radius: 50%; background: var(--service-model-accent, #1f2328); vertical-align: middle; }
.hotspot:not([data-visible]) button { opacity: 0.5; }
.hotspot p { margin: 4px 0 0; padding: 8px 10px; background: #fff; color: #1f2328; border-radius: 8px; box-shadow: 0 2px 8px rgb(0 0 0 / 18%); font-size: 12px; width: max-content; max-width: 200px; }
.hotspot p[hidden], .ar-cta[hidden] { display: none; }
.dims { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; overflow: visible; }
.dims line { stroke: var(--service-model-accent, #1f2328); stroke-width: 1.5; stroke-dasharray: 4 3; }
.dim-end { width: 1px; height: 1px; pointer-events: none; }
.dim-label { font-size: 12px; padding: 2px 6px; background: rgb(255 255 255 / 90%); color: #1f2328; border-radius: 4px; pointer-events: none; white-space: nowrap; }
.ar-cta { position: absolute; left: 50%; top: 12px; transform: translateX(-50%); padding: 8px 16px; border-radius: 999px; background: var(--service-model-accent, #1f2328); color: #fff; text-decoration: none; box-shadow: 0 2px 8px rgb(0 0 0 / 20%); }
`;
