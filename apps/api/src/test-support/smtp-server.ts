import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that records who connected and what AUTH it heard. */
export async function recordingSmtpServer(): Promise<{ port: number; peers: string[]; auths: string[]; close(): Promise<void> }> {
  const peers: string[] = [];
  const auths: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onConnect(session, callback) {
      peers.push(session.remoteAddress.replace(/^::ffff:/, ''));
      callback();
    },
    onAuth(auth, _session, callback) {
      auths.push(`${auth.username}:${auth.password}`);
      callback(null, { user: auth.username });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    peers,
    auths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
