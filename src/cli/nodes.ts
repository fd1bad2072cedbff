// `paddock nodes`: the operator at the console lists the nodes of the cluster and drains or undrains one,
// on the database named by DATABASE_URL (or the data directory's SQLite file), through the same node
// service as GET /v1/admin/nodes. One JSON object per line, as `paddock accounts` prints.
import { storageOptions, type Config } from '../config.js';
import { openStorage } from '../core/db/database.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { HttpError } from '../core/errors.js';
import { NodeService } from '../nodes/service.js';

export const NODES_USAGE = `usage: paddock nodes <command>
  list                              every node: id, role, address, state, epoch, capacity, sandboxes, alive
  drain ID                          the node keeps its sandboxes but is offered no new ones
  undrain ID                        the node takes new sandboxes again
`;

export async function nodesCommand(args: string[], config: Config): Promise<number> {
  const [command, ...rest] = args;
  const usage = (message: string) => {
    process.stderr.write(`${message}\n${NODES_USAGE}`);
    return 2;
  };
  if (!command) return usage('paddock nodes needs a command');
  if (command !== 'list' && command !== 'drain' && command !== 'undrain') return usage(`unknown nodes command "${command}"`);
  if (command === 'list' ? rest.length !== 0 : rest.length !== 1) return usage(command === 'list' ? 'list takes no argument' : `${command} needs the node id`);
  const storage = openStorage(storageOptions(config));
  try {
    await migrateToLatest(storage.db);
    const nodes = new NodeService(storage.db, { selfId: config.hostId, deadAfterSeconds: config.cluster.deadAfterSeconds }, null);
    const rows = command === 'list' ? await nodes.list('console') : [await nodes[command]('console', rest[0])];
    process.stdout.write(rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length ? '\n' : ''));
    return 0;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  } finally {
    await storage.close();
  }
}
