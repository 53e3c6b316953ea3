// Structural readers of a USDA layer for the USDZ tests. Pixar's usdcat/usdchecker (and the pxr Python
// module) are not installed here, so a layer is checked by reading its text: balanced, well-formed
// topology, expected values.

/** Brackets balance outside strings and @asset@ paths, with matching kinds. */
export function balanced(text: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (ch === '@') {
      i = text.indexOf('@', i + 1);
      if (i < 0) return false;
    } else if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) return false;
  }
  return stack.length === 0;
}

export const numbers = (s: string) => (s.match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) ?? []).map(Number);

export interface ParsedMesh {
  name: string;
  counts: number[];
  indices: number[];
  points: number[];
  normals: number[] | null;
  st: number[] | null;
  binding: string;
}

export function parseMeshes(layer: string): ParsedMesh[] {
  const out: ParsedMesh[] = [];
  const re = /def Mesh "([^"]+)"[\s\S]*?\n(\s*)\{\n([\s\S]*?)\n\2\}/g;
  for (const m of layer.matchAll(re)) {
    const body = m[3];
    const arr = (decl: string) => {
      const hit = new RegExp(`${decl.replace(/[[\]]/g, '\\$&')} = (\\[[^\\]]*\\])`).exec(body);
      return hit ? numbers(hit[1]) : null;
    };
    out.push({
      name: m[1],
      counts: arr('int[] faceVertexCounts') ?? [],
      indices: arr('int[] faceVertexIndices') ?? [],
      points: arr('point3f[] points') ?? [],
      normals: arr('normal3f[] normals'),
      st: arr('texCoord2f[] primvars:st'),
      binding: /rel material:binding = <([^>]+)>/.exec(body)?.[1] ?? '',
    });
  }
  return out;
}

export function shaderInput(layer: string, shader: string, input: string): number[] {
  const block = new RegExp(`def Shader "${shader}"\\s*\\{([^}]*)\\}`).exec(layer)?.[1] ?? '';
  const hit = new RegExp(`inputs:${input} = ([^\\n]+)`).exec(block);
  if (!hit) throw new Error(`no ${shader}.inputs:${input}`);
  return numbers(hit[1]);
}

/** The text of one `def Material` (up to the next one), for reading its shaders' inputs. */
export function materialBlock(layer: string, name: string): string {
  const start = layer.indexOf(`def Material "${name}"`);
  if (start < 0) throw new Error(`no material ${name}`);
  const next = layer.indexOf('def Material "', start + 1);
  return layer.slice(start, next < 0 ? undefined : next);
}

export function meshAttr(layer: string, mesh: string, decl: string): number[] | null {
  const block = new RegExp(`def Mesh "${mesh}"[\\s\\S]*?\\n(\\s*)\\{\\n([\\s\\S]*?)\\n\\1\\}`).exec(layer)?.[2] ?? '';
  const hit = new RegExp(`${decl.replace(/[[\]]/g, '\\$&')} = (\\[[^\\]]*\\])`).exec(block);
  return hit ? numbers(hit[1]) : null;
}

export const srgbByte = (c: number) => Math.round((c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055) * 255);
