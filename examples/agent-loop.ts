// An agent loop: the "model" writes Python, Paddock runs it in a sandbox with its output streamed, and
// the result goes back to the model for its next reply. The model here is a fixed script of replies that
// reads the feedback (it fixes the step that failed); the sandbox and everything it runs are real.
//
//   PADDOCK_URL=http://127.0.0.1:8080 PADDOCK_API_KEY=svc_sk_… npx tsx examples/agent-loop.ts
import { Paddock, type CreateSandboxParams } from '@paddock/sdk';

interface Turn {
  code: string;
  exitCode: number;
  output: string;
}

/** Stands in for a model: answers the next code to run from the conversation so far, or null when done. */
function modelReply(history: Turn[]): string | null {
  const last = history.at(-1);
  if (!last) return `numbers = [3, 1, 4, 1, 5, 9, 2, 6]\nopen('numbers.txt', 'w').write(','.join(map(str, numbers)))\nprint('wrote', len(numbers), 'numbers')`;
  if (last.exitCode !== 0 && last.output.includes('NameError')) {
    // The feedback says what went wrong: the "model" fixes its previous reply.
    return `import statistics\nnumbers = [int(n) for n in open('numbers.txt').read().split(',')]\nprint('mean', statistics.mean(numbers))\nprint('median', statistics.median(numbers))`;
  }
  if (history.length === 1) return `numbers = [int(n) for n in open('numbers.txt').read().split(',')]\nprint('mean', statistics.mean(numbers))`;
  if (!last.output.includes('summary')) return `import sys\nprint('summary: the numbers are in', sys.argv[0])`;
  return null;
}

/** Prints streamed output line by line with a prefix, holding a partial line until its end arrives. */
function linePrinter(prefix: string) {
  let partial = '';
  return {
    write(data: string) {
      const lines = (partial + data).split('\n');
      partial = lines.pop()!;
      for (const line of lines) console.log(`${prefix} ${line}`);
    },
    end() {
      if (partial) console.log(`${prefix} ${partial}`);
      partial = '';
    },
  };
}

const paddock = new Paddock();
const sandbox = await paddock.sandboxes.create({ template: (process.env.PADDOCK_TEMPLATE ?? 'python-311') as CreateSandboxParams['template'], cpus: 1, memory_mb: 256, disk_gb: 1 });
console.log(`sandbox ${sandbox.id} is running`);
const history: Turn[] = [];
try {
  for (let step = 1; step <= 10; step++) {
    const code = modelReply(history);
    if (code === null) break;
    const file = `/workspace/step-${step}.py`;
    await sandbox.files.write(file, code);
    console.log(`--- step ${step}: running ${file}`);
    const stdout = linePrinter(`[step ${step}]`);
    const stderr = linePrinter(`[step ${step} stderr]`);
    const result = await sandbox.commands.run(`python3 ${file}`, { timeoutMs: 60_000, onStdout: (data) => stdout.write(data), onStderr: (data) => stderr.write(data) });
    stdout.end();
    stderr.end();
    console.log(`--- step ${step}: exit ${result.exitCode}`);
    history.push({ code, exitCode: result.exitCode, output: result.stdout + result.stderr });
  }
} finally {
  await sandbox.destroy();
}
const failed = history.filter((turn) => turn.exitCode !== 0).length;
console.log(`agent loop done: ${history.length} steps, ${failed} failed and fixed`);
