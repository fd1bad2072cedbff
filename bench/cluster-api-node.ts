// An api node (no runtime) in its own process for `npm run bench cluster`, as it would be on a machine of
// its own: its forwarding does not wait on the event loop of the workers it forwards to. Prints one JSON
// line with its URL once registered; SIGTERM closes it. argv: <databaseUrl> <secret> <template>
import { startNode } from './cluster-nodes.js';

const [databaseUrl, secret, template] = process.argv.slice(2);
const node = await startNode({ hostId: 'bench-api', databaseUrl, secret, template });
process.stdout.write(`${JSON.stringify({ url: node.base })}\n`);
process.on('SIGTERM', () => void node.close().then(() => process.exit(0)));
