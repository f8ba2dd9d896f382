import { DEFAULT_CONNECTIONS_PER_SERVER } from '@mailcast/adapters';
import { loadDispatcherConfig, renderConfig, sendingConfig, sequencesConfig, smtpConnections, smtpThreads, webhookRelayConfig } from './config';

describe('the dispatcher configuration', () => {
  it('reads every setting at once, with the defaults when nothing is set', () => {
    const config = loadDispatcherConfig('https://mail.example.com', {}, 3);
    expect(config.sending).toEqual(sendingConfig('https://mail.example.com', {}));
    expect(config.smtp).toEqual({ threads: 2, connectionsPerServer: DEFAULT_CONNECTIONS_PER_SERVER });
    expect(config.webhookRelay).toEqual({});
    expect(config.render).toEqual({ threads: 1, heapMb: 256, timeLimitMs: 2_000 });
  });

  it('bounds the rendering threads as told', () => {
    const env = { MAILCAST_RENDER_THREADS: '2', MAILCAST_RENDER_HEAP_MB: '128', MAILCAST_RENDER_TIME_LIMIT_MS: '500' };
    expect(renderConfig(env)).toEqual({ threads: 2, heapMb: 128, timeLimitMs: 500 });
    expect(() => renderConfig({ MAILCAST_RENDER_THREADS: '0' })).toThrow('"MAILCAST_RENDER_THREADS" must be a positive integer');
  });

  it('refuses the whole configuration when one setting is bad', () => {
    expect(() => loadDispatcherConfig('https://mail.example.com', { MAILCAST_WEBHOOK_SWEEP_MS: 'soon' }, 2)).toThrow(
      '"MAILCAST_WEBHOOK_SWEEP_MS" must be a positive integer',
    );
  });

  it('keeps five messages in flight per SMTP connection and groups commits by the connections', () => {
    const defaults = sendingConfig('https://mail.example.com', {});
    expect(smtpConnections({})).toBe(DEFAULT_CONNECTIONS_PER_SERVER);
    expect(defaults.concurrency).toBe(5 * DEFAULT_CONNECTIONS_PER_SERVER);
    expect(defaults.commitGroup).toEqual({ size: DEFAULT_CONNECTIONS_PER_SERVER, maxWaitMs: 5 });

    const few = sendingConfig('https://mail.example.com', { MAILCAST_SMTP_CONNECTIONS: '3' });
    expect(smtpConnections({ MAILCAST_SMTP_CONNECTIONS: '3' })).toBe(3);
    expect(few.concurrency).toBe(15);
    expect(few.commitGroup.size).toBe(3);
  });

  it('lets MAILCAST_SEND_COMMIT_WAIT_MS set how long an outcome waits for its group, keeping the group size', () => {
    const waited = sendingConfig('https://mail.example.com', { MAILCAST_SEND_COMMIT_WAIT_MS: '20', MAILCAST_SMTP_CONNECTIONS: '3' });
    expect(waited.commitGroup).toEqual({ size: 3, maxWaitMs: 20 });
    expect(() => sendingConfig('https://mail.example.com', { MAILCAST_SEND_COMMIT_WAIT_MS: '0' })).toThrow(
      '"MAILCAST_SEND_COMMIT_WAIT_MS" must be a positive integer',
    );
  });

  it('lets MAILCAST_SEND_CONCURRENCY set the messages in flight on its own', () => {
    expect(sendingConfig('https://mail.example.com', { MAILCAST_SEND_CONCURRENCY: '7' }).concurrency).toBe(7);
  });

  it.each(['0', '-2', '2.5', 'many'])('refuses MAILCAST_SMTP_CONNECTIONS=%s, naming the variable', (value) => {
    expect(() => smtpConnections({ MAILCAST_SMTP_CONNECTIONS: value })).toThrow(
      'Invalid configuration: "MAILCAST_SMTP_CONNECTIONS" must be a positive integer',
    );
  });

  it('puts SMTP on one thread per core but the main one, at most 4, unless told', () => {
    expect(smtpThreads({}, 1)).toBe(0);
    expect(smtpThreads({}, 2)).toBe(1);
    expect(smtpThreads({}, 16)).toBe(4);
    expect(smtpThreads({ MAILCAST_SMTP_THREADS: '0' }, 8)).toBe(0);
    expect(smtpThreads({ MAILCAST_SMTP_THREADS: '6' }, 2)).toBe(6);
  });

  it.each(['-1', '1.5', 'two', '65'])('refuses MAILCAST_SMTP_THREADS=%s, naming the variable', (value) => {
    expect(() => smtpThreads({ MAILCAST_SMTP_THREADS: value }, 2)).toThrow('Invalid configuration: "MAILCAST_SMTP_THREADS" must be an integer from 0 to 64');
  });

  describe('webhook relay sweep', () => {
    it('keeps the defaults unless overridden', () => {
      expect(webhookRelayConfig({})).toEqual({});
    });
    it('reads the sweep interval and the stalled age in milliseconds', () => {
      expect(webhookRelayConfig({ MAILCAST_WEBHOOK_SWEEP_MS: '250', MAILCAST_WEBHOOK_STALLED_MS: '2000' })).toEqual({
        sweepEveryMs: 250,
        stalledAfterMs: 2000,
      });
    });
    it('rejects a value that is not a positive integer', () => {
      expect(() => webhookRelayConfig({ MAILCAST_WEBHOOK_STALLED_MS: '0' })).toThrow('"MAILCAST_WEBHOOK_STALLED_MS" must be a positive integer');
    });
  });

  describe('sequence runtime', () => {
    it('syncs segments every 15 minutes unless SEQUENCE_SEGMENT_SYNC_INTERVAL says, and polls about every second', () => {
      expect(sequencesConfig({})).toEqual({ pollMs: 1_000, segmentSyncMs: 900_000 });
      expect(sequencesConfig({ SEQUENCE_SEGMENT_SYNC_INTERVAL: '30s' }).segmentSyncMs).toBe(30_000);
      expect(sequencesConfig({ SEQUENCE_SEGMENT_SYNC_INTERVAL: '250ms' }).segmentSyncMs).toBe(250);
    });
    it.each(['soon', '1s,2s', '0s'])('refuses SEQUENCE_SEGMENT_SYNC_INTERVAL=%s, naming the variable', (value) => {
      expect(() => sequencesConfig({ SEQUENCE_SEGMENT_SYNC_INTERVAL: value })).toThrow('"SEQUENCE_SEGMENT_SYNC_INTERVAL" must be a duration');
    });
  });
});
