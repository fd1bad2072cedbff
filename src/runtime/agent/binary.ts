// The agent binary on the host, built from agent/paddock-agent.c by `npm run build` (scripts/build-agent.sh).
import { fileURLToPath } from 'node:url';

/** src/runtime/agent and dist/runtime/agent both sit three levels below the package root. */
export const hostAgentBinary = fileURLToPath(new URL('../../../build/paddock-agent', import.meta.url));
/** Where the sandbox sees it (bind-mounted read-only, like the init). */
export const sandboxAgentPath = '/.paddock/agent';
