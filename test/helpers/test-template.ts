// Builds the template the runtime tests use if the shared test data dir lacks it. Test files run in
// parallel workers, so a lock directory makes the first one build and the others wait.
import { mkdir, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildTemplates } from '../../src/runtime/templates/build.js';
import { templateLowerDirs } from '../../src/runtime/templates/template-store.js';
import { testDataDir, testNodeTemplate, testTemplate } from './runtime-environment.js';

const staleLockMs = 15 * 60_000;

export async function ensureTestTemplate(): Promise<void> {
  const lock = path.join(testDataDir, 'template-build.lock');
  await mkdir(testDataDir, { recursive: true });
  for (;;) {
    if ((await templateLowerDirs(testDataDir, testTemplate)) && (await templateLowerDirs(testDataDir, testNodeTemplate))) return;
    try {
      await mkdir(lock);
      break;
    } catch {
      const age =
        Date.now() -
        (await stat(lock)
          .then((s) => s.mtimeMs)
          .catch(() => Date.now()));
      if (age > staleLockMs) await rmdir(lock).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    await buildTemplates(testDataDir, [testTemplate, testNodeTemplate], (line) => process.stdout.write(`[templates] ${line}\n`));
  } finally {
    await rmdir(lock).catch(() => {});
  }
}
