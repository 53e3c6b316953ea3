// Small helpers for emitting USDA text. Only the subset of the grammar we need:
// prims with metadata, attributes with optional metadata, relationships.

/** Shortest decimal that round-trips a float32 well enough; USD accepts exponent forms. */
export function num(x: number): string {
  if (!Number.isFinite(x)) return '0';
  const s = String(Number(x.toPrecision(7)));
  return s === '-0' ? '0' : s;
}

export function tuple(values: ArrayLike<number>): string {
  let s = '(';
  for (let i = 0; i < values.length; i++) s += (i ? ', ' : '') + num(values[i]);
  return s + ')';
}

/** A `[(..), (..)]` array from a flat array of `width`-sized tuples. */
export function tupleArray(flat: ArrayLike<number>, width: number): string {
  const parts: string[] = new Array(flat.length / width);
  for (let i = 0, t = 0; i < flat.length; i += width, t++) {
    let s = '(' + num(flat[i]);
    for (let k = 1; k < width; k++) s += ', ' + num(flat[i + k]);
    parts[t] = s + ')';
  }
  return '[' + parts.join(', ') + ']';
}

export function intArray(values: ArrayLike<number>): string {
  return '[' + Array.prototype.join.call(values, ', ') + ']';
}

export function quote(s: string): string {
  return JSON.stringify(s);
}

/** Prim names must be identifiers; glTF names are arbitrary UTF-8. */
export function identifier(raw: string, fallback: string): string {
  let s = raw.replace(/[^A-Za-z0-9_]/g, '_').replace(/_+/g, '_').replace(/^_+|_+$/g, '');
  if (!s) s = fallback;
  if (/^[0-9]/.test(s)) s = '_' + s;
  return s.slice(0, 64);
}

/** Hands out unique identifiers within one namespace (one parent prim). */
export class NameScope {
  private readonly used = new Set<string>();

  take(raw: string, fallback: string): string {
    const base = identifier(raw, fallback);
    let name = base;
    for (let i = 1; this.used.has(name); i++) name = `${base}_${i}`;
    this.used.add(name);
    return name;
  }
}

export class UsdaText {
  private readonly lines: string[] = [];
  private depth = 0;

  line(text: string): this {
    this.lines.push('    '.repeat(this.depth) + text);
    return this;
  }

  blank(): this {
    this.lines.push('');
    return this;
  }

  /** `def Type "name" ( metadata ) {` — call close() to end the prim. */
  open(header: string, metadata: string[] = []): this {
    // Metadata opens on the header line, as usdcat writes it; the grammar is line-sensitive.
    if (!metadata.length) this.line(header);
    else {
      this.line(`${header} (`);
      this.depth++;
      for (const m of metadata) this.line(m);
      this.depth--;
      this.line(')');
    }
    this.line('{');
    this.depth++;
    return this;
  }

  close(): this {
    this.depth--;
    this.line('}');
    return this;
  }

  /** An attribute whose value is followed by a metadata block, e.g. interpolation. */
  attr(decl: string, value: string, metadata: string[] = []): this {
    if (!metadata.length) return this.line(`${decl} = ${value}`);
    this.line(`${decl} = ${value} (`);
    this.depth++;
    for (const m of metadata) this.line(m);
    this.depth--;
    return this.line(')');
  }

  /**
   * UTF-8 bytes of the layer. Encoded in batches rather than via one joined string:
   * a multi-million-vertex mesh would otherwise approach V8's maximum string length.
   */
  toBuffer(): Buffer {
    if (this.depth !== 0) throw new Error('usda: unbalanced prim nesting');
    const chunks: Buffer[] = [];
    let batch: string[] = [];
    let batchLength = 0;
    for (const line of this.lines) {
      batch.push(line);
      batchLength += line.length + 1;
      if (batchLength > 1 << 20) {
        chunks.push(Buffer.from(batch.join('\n') + '\n', 'utf8'));
        batch = [];
        batchLength = 0;
      }
    }
    if (batch.length) chunks.push(Buffer.from(batch.join('\n') + '\n', 'utf8'));
    return Buffer.concat(chunks);
  }
}
