// Builds dist/ and the sandbox agent once so CLI tests run the real `paddock` binary.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-agent.sh'], { stdio: 'inherit' });
}
