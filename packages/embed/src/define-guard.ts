/**
 * Shop themes often load model-viewer themselves, and registering a tag twice throws, which would
 * stop this whole module (so would this bundle loaded twice, say from /embed.js and a versioned URL).
 * While the bundled model-viewer evaluates, a tag that is already defined is left as it is and the
 * page's own definition is used; release() then restores the registry exactly as it was, so the
 * host page never sees the patch.
 */
const own = Object.getOwnPropertyDescriptor(customElements, 'define');
const original = customElements.define;

customElements.define = function define(this: CustomElementRegistry, name, ctor, options) {
  if (customElements.get(name)) return;
  return original.call(this, name, ctor, options);
};

export function releaseDefineGuard(): void {
  if (own) Object.defineProperty(customElements, 'define', own);
  else delete (customElements as Partial<CustomElementRegistry>).define;
}
