// `paddock snapshot create | list | restore | rm`.
import type { Paddock } from '@paddock/sdk';
import { JSON_OPTION, parse, positionals } from './args.js';
import { printJson, printLine, printTable, UsageError, withProgress } from './output.js';

interface Snapshot {
  id: string;
  sandbox_id: string;
  name: string;
  size_bytes: number;
  status: string;
  created_at: string;
}

export const SNAPSHOT_USAGE = `usage: paddock snapshot <command>
  create SANDBOX_ID [--name NAME]      list SANDBOX_ID
  restore SNAPSHOT_ID SANDBOX_ID       rm SNAPSHOT_ID
every command takes --json to print the API's JSON
`;

export async function snapshotCommand(client: () => Paddock, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  const paddock = () => client();
  switch (verb) {
    case 'create': {
      const { values, positionals: given } = parse('snapshot create', rest, { ...JSON_OPTION, name: { type: 'string' } });
      const [sandboxId] = positionals('snapshot create', given, ['SANDBOX_ID']);
      const name = values.name ?? `cli-${new Date().toISOString()}`;
      const snapshot = await withProgress(`snapshotting ${sandboxId}`, async () => (await paddock().sandboxes.connect(sandboxId)).snapshots.create(name));
      if (values.json) printJson(snapshot);
      else printLine(snapshot.id);
      return 0;
    }
    case 'list':
    case 'ls': {
      const { values, positionals: given } = parse('snapshot list', rest, JSON_OPTION);
      const [sandboxId] = positionals('snapshot list', given, ['SANDBOX_ID']);
      const snapshots = await (await paddock().sandboxes.connect(sandboxId)).snapshots.list();
      if (values.json) printJson(snapshots);
      else
        printTable(snapshots, [
          ['id', (s) => s.id],
          ['name', (s) => s.name],
          ['status', (s) => s.status],
          ['size', (s) => `${s.size_bytes} B`],
          ['created', (s) => s.created_at],
        ]);
      return 0;
    }
    case 'restore': {
      const { values, positionals: given } = parse('snapshot restore', rest, JSON_OPTION);
      const [snapshotId, sandboxId] = positionals('snapshot restore', given, ['SNAPSHOT_ID', 'SANDBOX_ID']);
      const result = await withProgress(`restoring ${snapshotId} into ${sandboxId}`, () => paddock().snapshots.restore(snapshotId, sandboxId));
      if (values.json) printJson(result);
      else printLine(`Restored ${snapshotId} into ${sandboxId}`);
      return 0;
    }
    case 'rm': {
      const { values, positionals: given } = parse('snapshot rm', rest, JSON_OPTION);
      const [snapshotId] = positionals('snapshot rm', given, ['SNAPSHOT_ID']);
      await paddock().snapshots.delete(snapshotId);
      if (values.json) printJson({ id: snapshotId, deleted: true });
      else printLine(`Deleted ${snapshotId}`);
      return 0;
    }
    default:
      throw new UsageError(verb ? `unknown snapshot command "${verb}"` : 'snapshot needs a command');
  }
}
