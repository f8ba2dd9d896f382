import { webhookRelayConfig } from './webhook-relay-config';

describe('webhookRelayConfig', () => {
  it('keeps the defaults unless overridden', () => {
    expect(webhookRelayConfig({})).toEqual({});
  });
  it('reads the sweep interval and the stalled age in milliseconds', () => {
    expect(webhookRelayConfig({ MAILCAST_WEBHOOK_SWEEP_MS: '250', MAILCAST_WEBHOOK_STALLED_MS: '2000' })).toEqual({ sweepEveryMs: 250, stalledAfterMs: 2000 });
  });
  it('rejects a value that is not a positive integer', () => {
    expect(() => webhookRelayConfig({ MAILCAST_WEBHOOK_STALLED_MS: '0' })).toThrow('"MAILCAST_WEBHOOK_STALLED_MS" must be a positive integer');
  });
});
