// The least a Node.js hop through Node's HTTP server and client can do, for `npm run bench cluster` to set
// the api node's forwarding (its fast lane, below that server) against: every request passed to one target
// over kept-alive connections and its answer streamed back, nothing looked up, signed or filtered but the
// hop-by-hop headers. Prints one JSON line with its URL.
// Usage: node bench/bare-proxy.mjs TARGET_ORIGIN
import http from 'node:http';

const target = new URL(process.argv[2]);
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((request, response) => {
  const headers = { ...request.headers };
  delete headers.connection;
  delete headers['keep-alive'];
  const upstream = http.request({ hostname: target.hostname, port: target.port, method: request.method, path: request.url, headers, agent }, (answer) => {
    const answerHeaders = { ...answer.headers };
    delete answerHeaders.connection;
    delete answerHeaders['keep-alive'];
    response.writeHead(answer.statusCode, answerHeaders);
    answer.pipe(response);
  });
  upstream.on('error', () => response.destroy());
  request.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => process.exit(0));
