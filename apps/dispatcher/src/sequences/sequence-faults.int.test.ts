import { SequenceRuntime, type StepRecord } from '@mailcast/core';
import { useSequenceHarness } from '../test-support/sequence-harness';

/** docs/sequences.md, "Runtime": a dispatcher that dies between sending and recording. */
describe('sequence runtime: a killed dispatcher', () => {
  const h = useSequenceHarness();

  it('loses no step: another dispatcher takes the lapsed claim and sends again with the same Message-ID, recorded once', async () => {
    const { id, steps } = await h.sequence([{ action: 'send_email', subject: 'In flight' }]);
    await h.enrol(id, 'inflight@example.com');
    // A dispatcher whose records never commit: as if killed right after the SMTP server took the email.
    const real = h.dispatcher().resolve<SequenceRuntime>(SequenceRuntime);
    const killed = new Proxy(real, {
      get: (target, name) => {
        if (name === 'record')
          return (_worker: string, records: readonly StepRecord[]) =>
            records.some((r) => r.email) ? Promise.reject(new Error('killed')) : real.record(_worker, records);
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const doomed = h.dispatcher({ leaseMs: 400 }, [{ token: SequenceRuntime, value: killed }]);
    await expect(h.runDue(doomed)).rejects.toThrow('killed');
    expect(h.received('inflight@example.com')).toHaveLength(1);
    expect((await h.enrolment(id, 'inflight@example.com')).status).toBe('busy');

    // Its lease lapses in database time; the next dispatcher's turn takes the claim over.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await h.runDue();
    const sent = h.received('inflight@example.com');
    expect(sent).toHaveLength(2);
    const messageId = (m: { raw: Buffer }) => /^Message-ID: (.*?)\r?$/m.exec(m.raw.toString())![1];
    expect(messageId(sent[1]!)).toBe(messageId(sent[0]!));
    expect((await h.enrolment(id, 'inflight@example.com')).status).toBe('completed');
    expect(await h.api.database.db('sequence_step_runs').where({ step_id: steps[0] }).count<[{ count: number }]>('* as count')).toEqual([{ count: 1 }]);
    expect((await h.request('GET', `/api/v1/sequences/${id}/steps/${steps[0]}`)).body.statistics.sent).toBe(1);
  });
});
