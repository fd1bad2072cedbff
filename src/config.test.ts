import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_WARM_POOL, loadConfig, warmPool } from './config.js';

describe('PADDOCK_WARM_POOL', () => {
  it('defaults to a small pool of the common templates, and 0 or empty turns it off', () => {
    expect(loadConfig({}).warmPool).toEqual(warmPool(DEFAULT_WARM_POOL));
    expect(warmPool(undefined)).toEqual({ 'python-311': 2, 'node-22': 1 });
    expect(warmPool('0')).toEqual({});
    expect(warmPool('')).toEqual({});
    expect(warmPool(' python-311:3 , minimal:0 ')).toEqual({ 'python-311': 3, minimal: 0 });
  });

  it('names the problem in a bad value', () => {
    expect(() => warmPool('python-311')).toThrow(/template:count pairs.*"python-311"/);
    expect(() => warmPool('python-311:-1')).toThrow(ConfigError);
    expect(() => warmPool('ruby-3:1')).toThrow(/unknown template "ruby-3"; known: node-22/);
    expect(() => warmPool('python-311:51')).toThrow(/at most 50/);
    expect(() => warmPool('python-311:1,python-311:2')).toThrow(/names python-311 twice/);
  });
});
