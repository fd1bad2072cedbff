// Which Node.js versions Paddock runs on, for `paddock doctor`. The test command runs the suite on each
// (scripts/test.sh); package.json's `engines` states the same range.

/** Majors the suite runs on, the primary first. Node 20 reached its end of life in April 2026. */
export const SUPPORTED_NODE_MAJORS = [22, 20] as const;
const END_OF_LIFE_MAJORS: ReadonlySet<number> = new Set([20]);
const PRIMARY_MAJOR = SUPPORTED_NODE_MAJORS[0];
const INSTALL_PRIMARY = `bash scripts/find-node.sh ${PRIMARY_MAJOR} (installs Node.js ${PRIMARY_MAJOR} from the npm registry and prints its path)`;

export interface NodeSupport {
  ok: boolean;
  detail: string;
  fix?: string;
}

export function nodeSupport(version: string): NodeSupport {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  const supported = SUPPORTED_NODE_MAJORS.join(' and ');
  if (!Number.isInteger(major) || major < Math.min(...SUPPORTED_NODE_MAJORS)) {
    return { ok: false, detail: `v${version} is too old (supported: Node.js ${supported})`, fix: INSTALL_PRIMARY };
  }
  if (END_OF_LIFE_MAJORS.has(major)) {
    return { ok: true, detail: `v${version} (supported, but past its end of life; Node.js ${PRIMARY_MAJOR} is the supported LTS)` };
  }
  if (!(SUPPORTED_NODE_MAJORS as readonly number[]).includes(major)) {
    return { ok: true, detail: `v${version} (untested: the suite runs on Node.js ${supported})` };
  }
  return { ok: true, detail: `v${version}` };
}
