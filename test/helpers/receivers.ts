// Real receivers started inside a test: an HTTP server that records what it is sent and answers as the
// test says, and an SMTP server (smtp-server) that records the messages it accepts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface HttpReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Status for the n-th request (0-based); 200 unless the test says otherwise. */
  respond: (request: ReceivedRequest, index: number) => number;
  close(): Promise<void>;
}

export async function startHttpReceiver(respond: HttpReceiver['respond'] = () => 200): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const receiver = { respond } as HttpReceiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      requests.push(request);
      const status = receiver.respond(request, requests.length - 1);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `failing with ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  receivedAt: number;
}

export interface SmtpReceiver {
  url: string;
  messages: ReceivedMail[];
  /** SMTP reply code for the n-th message's data (0-based); 250 accepts. */
  respond: (index: number) => number;
  close(): Promise<void>;
}

export async function startSmtpReceiver(respond: SmtpReceiver['respond'] = () => 250): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  let seen = 0;
  const receiver = { respond } as SmtpReceiver;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const code = receiver.respond(seen++);
        if (code !== 250) return callback(Object.assign(new Error(`test receiver refuses with ${code}`), { responseCode: code }));
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
