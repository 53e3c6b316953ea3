/**
 * Shop themes often load model-viewer themselves, and registering a tag twice throws, which would
 * stop this whole module. While the bundled model-viewer evaluates, a second definition of its
 * tags is skipped (the page's own model-viewer is then used); release() restores the registry
 * exactly as it was, so the host page never sees the patch.
 */
const GUARDED = new Set(['model-viewer']);
const own = Object.getOwnPropertyDescriptor(customElements, 'define');
const original = customElements.define;

customElements.define = function define(this: CustomElementRegistry, name, ctor, options) {
  if (GUARDED.has(name) && customElements.get(name)) return;
  return original.call(this, name, ctor, options);
};

export function releaseDefineGuard(): void {
  if (own) Object.defineProperty(customElements, 'define', own);
  else delete (customElements as Partial<CustomElementRegistry>).define;
}
