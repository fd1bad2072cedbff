// The C programs are built hardened (scripts/build-relay.sh, scripts/build-agent.sh): position-independent
// (ASLR), full RELRO (relocations read-only, bound at load), a stack protector and fortified libc calls.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const objdump = (args: string[], binary: string) => execFileSync('objdump', ['-d', '--no-show-raw-insn', ...args, binary], { encoding: 'utf8', maxBuffer: 256 << 20 });
const readelf = (args: string[], binary: string) => execFileSync('readelf', ['-W', ...args, binary], { encoding: 'utf8' });

describe.each(['build/paddock-relay', 'build/paddock-agent'])('%s', (binary) => {
  it('is a position-independent executable', () => {
    expect(readelf(['-h'], binary)).toMatch(/Type:\s+DYN/);
    expect(readelf(['-d'], binary)).toMatch(/FLAGS_1\)\s+Flags:.*\bPIE\b/);
  });

  it('has full RELRO', () => {
    expect(readelf(['-l'], binary)).toMatch(/GNU_RELRO/);
    expect(readelf(['-d'], binary)).toMatch(/BIND_NOW/);
  });

  // Disassembled rather than read from the symbols: the agent links libc statically, and libc is itself
  // built with a stack protector whatever the agent's own flags.
  it('has a stack protector and fortified libc calls', () => {
    expect(objdump(['--disassemble=main'], binary)).toMatch(/call.*<__stack_chk_fail(@plt)?>/);
    expect(objdump([], binary)).toMatch(/call.*<__\w+_chk(@plt)?>/);
  });
});
