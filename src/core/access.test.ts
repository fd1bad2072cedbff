import { describe, expect, it } from 'vitest';
import { scopeAllows, scopeContains } from './access.js';

describe('scopeAllows', () => {
  it('lets full do everything', () => {
    for (const area of ['account', 'sandboxes', 'pipelines', 'billing'] as const) expect(scopeAllows('full', area, 'DELETE')).toBe(true);
  });
  it('limits sandbox to sandbox and snapshot endpoints, any method', () => {
    expect(scopeAllows('sandbox', 'sandboxes', 'POST')).toBe(true);
    expect(scopeAllows('sandbox', 'snapshots', 'DELETE')).toBe(true);
    expect(scopeAllows('sandbox', 'sessions', 'GET')).toBe(false);
    expect(scopeAllows('sandbox', 'account', 'GET')).toBe(false);
    expect(scopeAllows('sandbox', 'pipelines', 'GET')).toBe(false);
  });
  it('limits read to GET on sandboxes and sessions', () => {
    expect(scopeAllows('read', 'sandboxes', 'GET')).toBe(true);
    expect(scopeAllows('read', 'sessions', 'GET')).toBe(true);
    expect(scopeAllows('read', 'sandboxes', 'POST')).toBe(false);
    expect(scopeAllows('read', 'snapshots', 'GET')).toBe(false);
    expect(scopeAllows('read', 'account', 'GET')).toBe(false);
  });
  it('refuses read on a GET that acts (a terminal), and lets sandbox through', () => {
    expect(scopeAllows('read', 'sandboxes', 'GET', true)).toBe(false);
    expect(scopeAllows('sandbox', 'sandboxes', 'GET', true)).toBe(true);
  });
});

describe('scopeContains', () => {
  it('never lets a key mint a wider or sideways scope', () => {
    expect(scopeContains('full', 'sandbox')).toBe(true);
    expect(scopeContains('full', 'read')).toBe(true);
    expect(scopeContains('sandbox', 'sandbox')).toBe(true);
    expect(scopeContains('sandbox', 'full')).toBe(false);
    expect(scopeContains('sandbox', 'read')).toBe(false);
    expect(scopeContains('read', 'sandbox')).toBe(false);
    expect(scopeContains('read', 'full')).toBe(false);
  });
});
