// Writes host sysctls through /proc/sys (the writing process's network namespace is the one changed).
import { writeFile } from 'node:fs/promises';

/** `optional`: the key may be absent (a kernel without IPv6 has no ipv6 tree), which is not an error. */
export async function writeSysctl(path: string, value: string, optional = false): Promise<void> {
  await writeFile(path, value).catch((error: NodeJS.ErrnoException) => {
    if (!(optional && error.code === 'ENOENT')) throw error;
  });
}
