// A client for latency benchmarks, run as its own process so what it times is the answer as another
// process sees it, not the server's event loop also busy with work it starts after answering (the pause
// snapshot's copy). Reads one request per line on stdin ({"method", "route", "body"?}), answers one line
// per request on stdout ({"ms", "status", "body"}: the body parsed as JSON when it is, else its text, read
// to the end, so a streamed answer is timed until its last byte). Usage: node bench/timed-client.mjs BASE_URL TOKEN
import readline from 'node:readline';

const [base, token] = process.argv.slice(2);
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { method, route, body } = JSON.parse(line);
  const headers = { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const started = performance.now();
  const response = await fetch(base + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const ms = performance.now() - started;
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  process.stdout.write(`${JSON.stringify({ ms, status: response.status, body: parsed })}\n`);
}
