import net from 'node:net';
import { RawHttpClient } from './raw-http.js';

/**
 * A server that answers each connection's first request with keep-alive and closes the connection
 * when a second one arrives on it: the race of a keep-alive timeout firing as a client reuses the
 * socket (issue 21, item 11), made certain.
 */
function serverClosingReusedSockets(close: (socket: net.Socket) => void): Promise<{ server: net.Server; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    let answered = false;
    socket.on('data', () => {
      if (answered) return close(socket);
      answered = true;
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}');
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, connections: () => connections })));
}

describe('RawHttpClient', () => {
  it.each([
    ['reset', (socket: net.Socket) => socket.resetAndDestroy()],
    ['closed', (socket: net.Socket) => socket.destroy()],
  ])('sends a request again on a new connection when the reused keep-alive socket was %s before an answer', async (_, close) => {
    const { server, connections } = await serverClosingReusedSockets(close);
    const client = await RawHttpClient.listen(server as unknown as import('node:http').Server);
    try {
      expect((await client.send({ method: 'GET', target: '/' })).body).toEqual({ ok: true });
      const again = await client.send({ method: 'POST', target: '/', body: '{}', headers: { 'Content-Type': 'application/json' } });
      expect(again.status).toBe(200);
      expect(connections()).toBe(2);
    } finally {
      client.close();
      server.close();
    }
  });

  it('does not hide a connection refused', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = await RawHttpClient.listen(server as unknown as import('node:http').Server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(client.send({ method: 'GET', target: '/' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    client.close();
  });
});
