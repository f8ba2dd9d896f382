import { SystemMail, type SystemMessage } from '@mailcast/core';
import request from 'supertest';
import { useApi } from '../../test-support/harness';

/** A reset link that cannot be mailed does not undo the user: the answer says so (docs/teams.md). */
describe('creating a user whose reset link cannot be sent', () => {
  const failing: SystemMail = {
    send: (message: SystemMessage) => Promise.reject(new Error(`no email server to reach ${message.to}`)),
  };
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' }, overrides: [{ token: SystemMail, value: failing }] });

  it('answers 201 with a parameter_ignored warning, and the user exists without a password', async () => {
    const admin = await api.fixtures.anAdminToken();
    const res = await request(api.app)
      .post('/api/v1/users')
      .set('Authorization', `Bearer ${admin}`)
      .send({ email: 'nomail@example.com', send_password_reset: true });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      {
        code: 'parameter_ignored',
        param: 'send_password_reset',
        message: expect.stringContaining('the reset link could not be sent (no email server to reach nomail@example.com)'),
      },
    ]);
    expect((await api.database.db('users').where({ id: res.body.id }).first()).password_hash).toBeNull();
  });
});
