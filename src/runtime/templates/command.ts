// `paddock templates …`: build [names…] | import NAME ARCHIVE | status. Returns the process exit code.
import { buildState, buildTemplates } from './build.js';
import { findTemplate } from './catalog.js';
import { importTemplate } from './import.js';
import { templateStatus } from './status.js';

export async function runTemplatesCommand(argv: string[], dataDir: string): Promise<number> {
  const [subcommand, ...rest] = argv;
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  try {
    if (subcommand === 'build') {
      const report = await buildTemplates(dataDir, rest, log);
      log(`built: ${report.built.join(', ') || '-'}; already ready: ${report.skipped.join(', ') || '-'}; ` + `${(report.durationMs / 1000).toFixed(1)} s`);
      return 0;
    }
    if (subcommand === 'import' && rest.length === 2) {
      await importTemplate(dataDir, rest[0], rest[1]);
      log(`${rest[0]}: imported from ${rest[1]}`);
      return 0;
    }
    if (subcommand === 'status' || subcommand === undefined) {
      for (const status of await templateStatus(dataDir)) {
        const outdated = status.ready && (await buildState(dataDir, findTemplate(status.name)!)) === 'outdated';
        const ready = outdated ? `ready, built from an older recipe (run: paddock templates build ${status.name})` : 'ready';
        log(`${status.name.padEnd(11)} ${status.ready ? ready : `not ready: ${status.reason}; ${status.how_to_fix}`}`);
      }
      return 0;
    }
    process.stderr.write('usage: paddock templates build [names…] | import NAME ARCHIVE | status\n');
    return 2;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
