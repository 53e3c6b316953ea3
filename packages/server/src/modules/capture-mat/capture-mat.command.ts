import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { captureMatPdf } from '@plinth/media';

/** `plinth capture-mat [--out FILE]`: writes the printable mat (default ./capture-mat.pdf; `-` for stdout). */
export async function captureMatCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { out: { type: 'string', default: 'capture-mat.pdf' } } });
  const pdf = captureMatPdf();
  if (values.out === '-') {
    await new Promise<void>((done, failed) => process.stdout.write(pdf, (err) => (err ? failed(err) : done())));
    return;
  }
  const path = resolve(values.out);
  await writeFile(path, pdf);
  // stdout stays the file's when it is one; the note goes to stderr.
  process.stderr.write(`wrote the capture mat to ${path} (A4; print at 100 %, no scaling)\n`);
}
