import net from 'node:net';
import { startSmtpCapture } from './smtp-capture';

/** The first bytes the server sends on a fresh connection, or '' when it closes without a word. */
function greeting(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
      if (data.includes('\r\n')) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(data) : reject(error)));
    socket.on('close', () => resolve(data));
  });
}

describe('SMTP capture fault injection', () => {
  it('destroys the connections dropConnection chooses, before the greeting, and serves the others', async () => {
    const smtp = await startSmtpCapture({ dropConnection: (n) => n <= 2 });
    try {
      expect(await greeting(smtp.port)).toBe('');
      expect(await greeting(smtp.port)).toBe('');
      expect(await greeting(smtp.port)).toMatch(/^220 /);
      expect(smtp.dropped()).toBe(2);

      const socket = net.connect(smtp.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('data', resolve));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      expect(smtp.dropOpenConnections()).toBe(1);
      await closed;
      expect(smtp.dropped()).toBe(3);
    } finally {
      await smtp.close();
    }
  });
});
