// Load generator for bench/ingest.ts, run as its own process so the client does not share the
// server's event loop: posts each line of a file (a JSON body) with N requests in flight.
// Usage: node bench/post-load.mjs URL TOKEN FILE CONCURRENCY → prints {"seconds": …}
import fs from 'node:fs';

const [url, token, file, concurrency] = process.argv.slice(2);
const bodies = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
      const text = await response.text();
      if (response.status !== 200 || JSON.parse(text).errors !== 0) throw new Error(`ingest answered ${response.status}: ${text.slice(0, 300)}`);
    }
  }),
);
process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
