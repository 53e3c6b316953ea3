import { createRequire } from 'node:module';

// gltf-validator ships no type declarations and is CommonJS; loading it through
// createRequire pins Node's resolution (vite would otherwise pick its "module" build).

export interface ValidationMessage {
  code: string;
  message: string;
  /** 0 error, 1 warning, 2 info, 3 hint (the validator's numbering). */
  severity: number;
  pointer?: string;
}

export interface ValidationResult {
  errors: number;
  warnings: number;
  messages: ValidationMessage[];
  /** Triangle count the validator computed; handy to cross-check our own. */
  triangles?: number;
}

interface ValidatorReport {
  issues: {
    numErrors: number;
    numWarnings: number;
    messages: (ValidationMessage & { offset?: number })[];
  };
  info?: { totalTriangleCount?: number };
}

interface ValidatorOptions {
  uri?: string;
  format?: 'glb' | 'gltf';
  externalResourceFunction?: (uri: string) => Promise<Uint8Array>;
  writeTimestamp?: boolean;
  maxIssues?: number;
  ignoredIssues?: string[];
}

interface GltfValidatorModule {
  validateBytes(data: Uint8Array, options?: ValidatorOptions): Promise<ValidatorReport>;
  version(): string;
}

let validatorModule: GltfValidatorModule | null = null;

function loadValidator(): GltfValidatorModule {
  // Lazy: the compiled Dart bundle is sizeable and most processes never touch models.
  validatorModule ??= createRequire(import.meta.url)('gltf-validator') as GltfValidatorModule;
  return validatorModule;
}

export function validatorVersion(): string {
  return loadValidator().version();
}

/**
 * The compiled validator reads resources through their underlying ArrayBuffer and
 * ignores byteOffset, so a view into Node's shared Buffer pool would be validated
 * against the wrong bytes. Copy unless the view already owns its whole buffer.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return new Uint8Array(bytes);
}

/** Thrown when the validator cannot even recognise the bytes as glTF or GLB. */
export class UnrecognisedAsset extends Error {}

/**
 * Runs the Khronos validator. External resources are served only from `resources`;
 * anything else is refused, so the validator can never reach the network or disk
 * on its own (it would otherwise report the URI as an IO_ERROR, never fetch it).
 */
export async function validateAsset(
  data: Uint8Array,
  resources: ReadonlyMap<string, Uint8Array> = new Map(),
  opts: { format?: 'glb' | 'gltf'; maxIssues?: number } = {},
): Promise<ValidationResult> {
  const validator = loadValidator();
  const exact = new Map([...resources].map(([uri, bytes]) => [uri, ownBuffer(bytes)]));
  let report: ValidatorReport;
  try {
    report = await validator.validateBytes(ownBuffer(data), {
      format: opts.format,
      writeTimestamp: false,
      maxIssues: opts.maxIssues ?? 200,
      externalResourceFunction: (uri) => {
        const hit = exact.get(uri);
        return hit ? Promise.resolve(hit) : Promise.reject(new Error(`resource ${uri} was not pre-fetched`));
      },
    });
  } catch (err) {
    // The Dart bundle rejects with plain strings, not Errors.
    throw new UnrecognisedAsset(typeof err === 'string' ? err : (err as Error)?.message ?? String(err));
  }
  return {
    errors: report.issues.numErrors,
    warnings: report.issues.numWarnings,
    messages: report.issues.messages.map(({ code, message, severity, pointer }) =>
      pointer === undefined ? { code, message, severity } : { code, message, severity, pointer },
    ),
    triangles: report.info?.totalTriangleCount,
  };
}

/** Validates a self-contained GLB (our own output, or one handed back to rescale). */
export async function validateGlb(
  glb: Buffer,
): Promise<{ errors: number; warnings: number; messages: ValidationMessage[] }> {
  try {
    const { errors, warnings, messages } = await validateAsset(glb, new Map(), { format: 'glb' });
    return { errors, warnings, messages };
  } catch (err) {
    if (!(err instanceof UnrecognisedAsset)) throw err;
    return {
      errors: 1,
      warnings: 0,
      messages: [{ code: 'UNRECOGNISED_ASSET', message: err.message, severity: 0 }],
    };
  }
}
