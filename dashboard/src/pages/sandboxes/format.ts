// How sandbox sizes read.

export function formatMemory(mb: number): string {
  return mb >= 1024 && mb % 512 === 0 ? `${mb / 1024} GiB` : `${mb} MiB`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function resources(sandbox: { cpus: number; memory_mb: number; disk_gb: number }): string {
  return `${sandbox.cpus} CPU · ${formatMemory(sandbox.memory_mb)} · ${sandbox.disk_gb} GB`;
}
