// A client for latency benchmarks, run as its own process so what it times is the answer as another
// process sees it, not the server's event loop also busy with work it starts after answering (the pause
// snapshot's copy). Reads one request per line on stdin ({"method", "route"}), answers one line per
// request on stdout ({"ms", "status", "body"}). Usage: node bench/timed-client.mjs BASE_URL TOKEN
import readline from 'node:readline';

const [base, token] = process.argv.slice(2);
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { method, route } = JSON.parse(line);
  const started = performance.now();
  const response = await fetch(base + route, { method, headers: { authorization: `Bearer ${token}` } });
  const body = await response.json();
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, status: response.status, body })}\n`);
}
