import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, secretKey, signWebhook, verifyWebhook } from './signature.js';

describe('Standard Webhooks signature', () => {
  // The example from the Standard Webhooks specification and its reference libraries.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1614265330;
  const body = '{"test": 2432232314}';

  it('matches the specification example', () => {
    expect(signWebhook(secret, id, timestamp, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verifies among several signatures and refuses a changed body', () => {
    const signature = signWebhook(secret, id, timestamp, body);
    expect(verifyWebhook(secret, id, timestamp, body, `v1,bm90IGl0 ${signature}`)).toBe(true);
    expect(verifyWebhook(secret, id, timestamp, body.replace('2', '3'), signature)).toBe(false);
  });

  it('generates secrets of 32 random bytes that it accepts', () => {
    const generated = generateWebhookSecret();
    expect(generated).toMatch(/^whsec_/);
    expect(secretKey(generated)?.length).toBe(32);
    expect(generateWebhookSecret()).not.toBe(generated);
  });

  it('refuses secrets that are too short or not base64', () => {
    expect(secretKey('whsec_c2hvcnQ=')).toBeNull();
    expect(secretKey('whsec_not base64!')).toBeNull();
    expect(secretKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBeNull();
  });
});
