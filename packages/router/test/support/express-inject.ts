/** One request to an Express app on a loopback port, closed right after: status, headers, body. */
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export async function expressInject(
  app: Express,
  method: string,
  path: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
