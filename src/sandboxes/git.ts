// `git diff` of /workspace against HEAD, untracked files included, computed inside the sandbox with a
// throw-away index so the user's own index is left as it was.
import { BadRequest } from '../core/errors.js';
import type { SandboxService } from './service.js';

const NOT_A_REPOSITORY = 3;
const SEPARATOR = '\n--paddock-name-status--\n';

const SCRIPT = `
cd /workspace 2>/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit ${NOT_A_REPOSITORY}
index=$(mktemp)
trap 'rm -f "$index"' EXIT
git_dir=$(git rev-parse --git-dir)
# -p keeps the index's time, which git compares with file times to catch edits made within its timestamp.
[ -f "$git_dir/index" ] && cp -p "$git_dir/index" "$index" || rm -f "$index"
export GIT_INDEX_FILE="$index"
git add -A -N . >/dev/null 2>&1
base=HEAD
git rev-parse --verify -q HEAD >/dev/null || base=$(git hash-object -t tree /dev/null)
git -c core.quotepath=off diff --no-color --no-ext-diff "$base"
printf '${SEPARATOR.replaceAll('\n', '\\n')}'
git -c core.quotepath=off diff --no-color --name-status -z "$base"
`;

const STATUS: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type_changed' };

export async function gitDiff(sandboxes: SandboxService, accountId: string, id: string) {
  const result = await sandboxes.run(accountId, id, { timeoutMs: 60_000, command: SCRIPT, maxOutputBytes: 32 * 1024 * 1024 });
  if (result.exitCode === NOT_A_REPOSITORY) throw new BadRequest('/workspace is not a git repository');
  if (result.exitCode !== 0) throw new BadRequest(`git diff failed: ${result.stderr.toString().trim()}`);
  const output = result.stdout.toString('utf8');
  const at = output.lastIndexOf(SEPARATOR);
  const diff = output.slice(0, at);
  const fields = output
    .slice(at + SEPARATOR.length)
    .split('\0')
    .filter((f) => f !== '');
  const files: { path: string; status: string; from?: string }[] = [];
  for (let i = 0; i < fields.length;) {
    const code = fields[i++];
    const kind = STATUS[code[0]] ?? 'modified';
    if (code[0] === 'R' || code[0] === 'C') {
      files.push({ path: fields[i + 1], status: kind, from: fields[i] });
      i += 2;
    } else {
      files.push({ path: fields[i++], status: kind });
    }
  }
  return { diff, files, truncated: result.truncated };
}
