// A tiny, valid glTF 2.0 binary (a box with normals and indices), built in memory so the read
// benchmark can import a real model through the API without shipping a fixture file.
import { createServer } from 'node:http';

const FLOAT = 5126;
const USHORT = 5123;
const ARRAY_BUFFER = 34962;
const ELEMENT_ARRAY_BUFFER = 34963;

/** Box of the given size in metres, centred on the origin: 24 vertices (flat normals), 12 triangles. */
function box(w, h, d) {
  const x = w / 2;
  const y = h / 2;
  const z = d / 2;
  // Each face: normal, then four corners counter-clockwise seen from outside.
  const faces = [
    [[1, 0, 0], [[x, -y, z], [x, -y, -z], [x, y, -z], [x, y, z]]],
    [[-1, 0, 0], [[-x, -y, -z], [-x, -y, z], [-x, y, z], [-x, y, -z]]],
    [[0, 1, 0], [[-x, y, z], [x, y, z], [x, y, -z], [-x, y, -z]]],
    [[0, -1, 0], [[-x, -y, -z], [x, -y, -z], [x, -y, z], [-x, -y, z]]],
    [[0, 0, 1], [[-x, -y, z], [x, -y, z], [x, y, z], [-x, y, z]]],
    [[0, 0, -1], [[x, -y, -z], [-x, -y, -z], [-x, y, -z], [x, y, -z]]],
  ];
  const positions = new Float32Array(24 * 3);
  const normals = new Float32Array(24 * 3);
  const indices = new Uint16Array(36);
  faces.forEach(([n, corners], f) => {
    corners.forEach((c, i) => {
      positions.set(c, (f * 4 + i) * 3);
      normals.set(n, (f * 4 + i) * 3);
    });
    const v = f * 4;
    indices.set([v, v + 1, v + 2, v, v + 2, v + 3], f * 6);
  });
  return { positions, normals, indices, min: [-x, -y, -z], max: [x, y, z] };
}

const pad4 = (n) => (n + 3) & ~3;

/** Returns the GLB as a Buffer. */
export function makeBoxGlb({ width = 0.3, height = 0.2, depth = 0.1 } = {}) {
  const b = box(width, height, depth);
  const posBytes = Buffer.from(b.positions.buffer);
  const nrmBytes = Buffer.from(b.normals.buffer);
  const idxBytes = Buffer.from(b.indices.buffer);
  // Index data (72 bytes) is already 4-aligned, so the three views can sit back to back.
  const bin = Buffer.concat([posBytes, nrmBytes, idxBytes]);
  const json = {
    asset: { version: '2.0', generator: 'plinth-bench' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name: 'box' }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, NORMAL: 1 }, indices: 2, mode: 4 }] }],
    accessors: [
      { bufferView: 0, componentType: FLOAT, count: 24, type: 'VEC3', min: b.min, max: b.max },
      { bufferView: 1, componentType: FLOAT, count: 24, type: 'VEC3' },
      { bufferView: 2, componentType: USHORT, count: 36, type: 'SCALAR' },
    ],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: posBytes.length, target: ARRAY_BUFFER },
      { buffer: 0, byteOffset: posBytes.length, byteLength: nrmBytes.length, target: ARRAY_BUFFER },
      { buffer: 0, byteOffset: posBytes.length + nrmBytes.length, byteLength: idxBytes.length, target: ELEMENT_ARRAY_BUFFER },
    ],
    buffers: [{ byteLength: bin.length }],
  };
  const jsonText = Buffer.from(JSON.stringify(json));
  // Chunks must be 4-byte aligned: JSON pads with spaces, BIN with zeros.
  const jsonChunk = Buffer.alloc(pad4(jsonText.length), 0x20);
  jsonText.copy(jsonChunk);
  const binChunk = Buffer.alloc(pad4(bin.length));
  bin.copy(binChunk);

  const total = 12 + 8 + jsonChunk.length + 8 + binChunk.length;
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x46546c67, 0); // "glTF"
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(total, 8);
  const chunkHeader = (length, type) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(length, 0);
    h.writeUInt32LE(type, 4);
    return h;
  };
  return Buffer.concat([header, chunkHeader(jsonChunk.length, 0x4e4f534a), jsonChunk, chunkHeader(binChunk.length, 0x004e4942), binChunk]);
}

/**
 * Serves one GLB on 127.0.0.1 (in this process: it answers a single fetch during seeding, never
 * under load). Returns { url, close() }.
 */
export async function serveGlb(glb = makeBoxGlb()) {
  const server = createServer((req, res) => {
    if (req.url !== '/box.glb') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(glb.length) }).end(glb);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/box.glb`,
    close: () => new Promise((resolve) => server.close(resolve).closeAllConnections()),
  };
}
