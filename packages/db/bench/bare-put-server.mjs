// The writes suite's floor (./writes.mjs): a bare node:http server that answers a PUT of a
// document with the 201 Divan sends (the same headers and a body of the same shape and length),
// after reading the request's body whole, and does nothing else: no parse, no storage, no log.
// What the benchmark's client and node's HTTP machinery cost a request on this machine, so the
// writes suite can print how much of a PUT's time is Divan's own. Prints its port on stdout.

import { randomBytes } from 'node:crypto';
import http from 'node:http';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const id = req.url.slice(req.url.lastIndexOf('/') + 1);
    const rev = `1-${randomBytes(16).toString('hex')}`;
    res.statusCode = 201;
    res.setHeader('X-Couch-Request-ID', randomBytes(5).toString('hex'));
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'must-revalidate');
    res.setHeader('ETag', `"${rev}"`);
    res.setHeader('Location', `http://${req.headers.host}${req.url}`);
    const body = `${JSON.stringify({ ok: true, id, rev })}\n`;
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
