import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** The queried name of a DNS message: labels from byte 12 on. */
function questionName(message: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  for (let length = message[at] ?? 0; length > 0; length = message[at] ?? 0) {
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += length + 1;
  }
  return { name: labels.join('.'), end: at + 5 };
}

/**
 * A name server on 127.0.0.1 for tests: names in `answers` get their IPv4 address (A), other
 * names of `silent` get no answer at all, ever, and the rest are answered NXDOMAIN. It counts the
 * questions it was asked, by name.
 */
export async function startNameServer(
  answers: Record<string, string>,
  silent: readonly string[],
): Promise<{ server: string; asked: Map<string, number>; close: () => Promise<void> }> {
  const socket = createSocket('udp4');
  const asked = new Map<string, number>();
  socket.on('message', (message, from) => {
    const { name, end } = questionName(message);
    asked.set(name, (asked.get(name) ?? 0) + 1);
    if (silent.includes(name)) return;
    const type = message.readUInt16BE(end - 4);
    const address = answers[name];
    const answered = address !== undefined && type === 1;
    const header = Buffer.from(message.subarray(0, 12));
    // A response, recursion available, NXDOMAIN when the name is unknown.
    header.writeUInt16BE(0x8180 | (address === undefined ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answered ? 1 : 0, 6);
    header.writeUInt16BE(0, 8);
    header.writeUInt16BE(0, 10);
    const question = message.subarray(12, end);
    const record = answered
      ? Buffer.concat([
          Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]),
          Buffer.from((address as string).split('.').map(Number)),
        ])
      : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, record]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
