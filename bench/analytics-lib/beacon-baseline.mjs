// The fair floor for POST /v1/beacon: a bare node:http handler that reads and parses the JSON body,
// counts the events and answers 202 with the same receipt Plinth sends. It stores nothing, so the
// ratio is the whole price of auth, validation and a durable (fsynced) group commit.
// Loaded by bench/lib/baseline-server.mjs as { module, options }.
export default function beaconBaseline() {
  return (req, res) => {
    if (req.method !== 'POST' || !req.url.startsWith('/v1/beacon')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let events;
      try {
        events = JSON.parse(Buffer.concat(chunks).toString('utf8')).events;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' }).end('{"error":"bad json"}');
        return;
      }
      const body = JSON.stringify({ object: 'beacon_receipt', accepted: Array.isArray(events) ? events.length : 0, clamped: 0 });
      res
        .writeHead(202, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          'access-control-allow-origin': req.headers.origin ?? '*',
          vary: 'Origin',
        })
        .end(body);
    });
  };
}
