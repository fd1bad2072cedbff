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

describe('PADDOCK_NETWORK_*', () => {
  it('leaves the network layer its defaults when unset or empty', () => {
    expect(loadConfig({}).network).toEqual({});
    expect(loadConfig({ PADDOCK_NETWORK_BRIDGE: '' }).network).toEqual({});
  });

  it('reads a bridge, subnet, table and prefixes of its own for each server of a host', () => {
    const config = loadConfig({
      PADDOCK_NETWORK_BRIDGE: 'pdkb0',
      PADDOCK_NETWORK_SUBNET: '10.31.0.0/16',
      PADDOCK_NETWORK_TABLE: 'paddock_b',
      PADDOCK_NETWORK_IF_PREFIX: 'pkb',
      PADDOCK_NETWORK_NETNS_PREFIX: 'paddock-b-',
    });
    expect(config.network).toEqual({ bridgeName: 'pdkb0', subnet: '10.31.0.0/16', tableName: 'paddock_b', interfacePrefix: 'pkb', netnsPrefix: 'paddock-b-' });
  });

  it.each([
    ['PADDOCK_NETWORK_BRIDGE', 'a-bridge-name-too-long', /PADDOCK_NETWORK_BRIDGE must be a valid interface name/],
    ['PADDOCK_NETWORK_BRIDGE', 'br 0', /PADDOCK_NETWORK_BRIDGE must be a valid interface name.*"br 0"/],
    ['PADDOCK_NETWORK_SUBNET', '10.31.0.0', /PADDOCK_NETWORK_SUBNET must be an IPv4 CIDR between \/8 and \/29/],
    ['PADDOCK_NETWORK_SUBNET', '10.31.0.0/30', /PADDOCK_NETWORK_SUBNET must be an IPv4 CIDR/],
    ['PADDOCK_NETWORK_TABLE', 'paddock;flush', /PADDOCK_NETWORK_TABLE must be letters, digits, _ or -/],
    ['PADDOCK_NETWORK_IF_PREFIX', 'toolong', /PADDOCK_NETWORK_IF_PREFIX must be 1–5 of \[a-z0-9\]/],
    ['PADDOCK_NETWORK_NETNS_PREFIX', '../x', /PADDOCK_NETWORK_NETNS_PREFIX must be \[a-z0-9_-\]/],
  ])('refuses %s=%s naming the variable', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });
});

describe('cluster settings', () => {
  const database = { DATABASE_URL: 'postgres://paddock@db/paddock' };
  const clusterSecret = { PADDOCK_CLUSTER_SECRET: 'x'.repeat(32) };
  const secretsKey = { PADDOCK_SECRETS_KEY: 'ab'.repeat(32) };

  it('names what a node of a cluster is missing', () => {
    expect(() => loadConfig({ PADDOCK_ROLE: 'worker' })).toThrow(/--role worker needs DATABASE_URL/);
    expect(() => loadConfig({ ...database, PADDOCK_ROLE: 'api' })).toThrow(/--role api needs PADDOCK_CLUSTER_SECRET/);
    expect(() => loadConfig({ ...database, PADDOCK_CLUSTER_SECRET: 'short' })).toThrow(/at least 32 bytes/);
    // Each node would generate a secrets key of its own: secrets, snapshot links and idempotent replays would break across nodes.
    expect(() => loadConfig({ ...database, ...clusterSecret, PADDOCK_ROLE: 'worker' })).toThrow(/needs PADDOCK_SECRETS_KEY, the same on every node/);
    expect(() => loadConfig({ ...database, ...clusterSecret })).toThrow(ConfigError);
  });

  it('accepts a complete node and a lone server without any of it', () => {
    expect(loadConfig({ ...database, ...clusterSecret, ...secretsKey, PADDOCK_ROLE: 'worker' }).cluster).toMatchObject({ role: 'worker', secret: Buffer.from(clusterSecret.PADDOCK_CLUSTER_SECRET) });
    expect(loadConfig({}).cluster).toMatchObject({ role: 'all', secret: null });
  });
});
