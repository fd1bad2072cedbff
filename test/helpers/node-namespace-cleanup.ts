// Destroys every sandbox a node left in its data dir, run inside the node's network namespace (its
// sandbox bridge, nftables tables and veths are there): containers, mounts, cgroups, /run/netns entries.
// argv: <dataDir> <the node's PADDOCK_NETWORK_* settings as JSON>
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime/index.js';

const [dataDir, networkEnv] = process.argv.slice(2);
const config = loadConfig({ PADDOCK_DATA: dataDir, ...(JSON.parse(networkEnv) as Record<string, string>) });
const runtime = createRuntime('runc', { dataDir, networkNames: config.network });
await runtime.init();
await runtime.reconcile([]);
await runtime.close?.();
