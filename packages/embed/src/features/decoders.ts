/**
 * Where model-viewer finds its mesh decoders. Its defaults fetch Draco from a Google CDN and leave meshopt off;
 * Plinth serves both beside the bundle (`/embed/decoders/…`), so a stored model that kept its Draco or meshopt
 * compression shows without any third-party request.
 *
 * model-viewer reads `self.ModelViewerElement` when each element is created. A page that set its own locations
 * (a theme with its own model-viewer, say) keeps them.
 */
interface ModelViewerGlobal {
  dracoDecoderLocation?: string;
  meshoptDecoderLocation?: string;
}

export function decoderLocations(scriptUrl: string): Required<ModelViewerGlobal> {
  const base = new URL('/embed/decoders/', scriptUrl).href;
  return {
    // DRACOLoader adds the file names (draco_wasm_wrapper.js + draco_decoder.wasm, or draco_decoder.js).
    dracoDecoderLocation: `${base}draco/`,
    // The meshopt decoder itself is inside the bundle; model-viewer turns it on once a script at this URL loads.
    meshoptDecoderLocation: `${base}meshopt.js`,
  };
}

export function configureDecoders(scriptUrl: string): void {
  const scope = self as unknown as { ModelViewerElement?: ModelViewerGlobal };
  const own = decoderLocations(scriptUrl);
  const current = scope.ModelViewerElement ?? {};
  scope.ModelViewerElement = current;
  current.dracoDecoderLocation ??= own.dracoDecoderLocation;
  current.meshoptDecoderLocation ??= own.meshoptDecoderLocation;
}
