import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_WARM_POOL, loadConfig, metricsListen, warmPool } from './config.js';

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

describe('PADDOCK_METRICS_LISTEN', () => {
  it('is off unless set, and takes host:port or [ipv6]:port', () => {
    expect(loadConfig({}).metricsListen).toBeNull();
    expect(metricsListen('off')).toBeNull();
    expect(metricsListen('')).toBeNull();
    expect(loadConfig({ PADDOCK_METRICS_LISTEN: '127.0.0.1:9464' }).metricsListen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(metricsListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(metricsListen('metrics.internal:9100')).toEqual({ host: 'metrics.internal', port: 9100 });
  });

  it('names the problem in a bad value', () => {
    expect(() => loadConfig({ PADDOCK_METRICS_LISTEN: '9464' })).toThrow(/PADDOCK_METRICS_LISTEN must be host:port .* got "9464"/);
    expect(() => metricsListen('127.0.0.1:99999')).toThrow(ConfigError);
    expect(() => metricsListen('::1:9464')).toThrow(/host:port/);
    expect(() => metricsListen('[1.2.3.4]:9464')).toThrow(/not an IPv6 address/);
    expect(() => metricsListen('127.0.0.1:')).toThrow(/host:port/);
  });
});
