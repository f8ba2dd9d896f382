import { fakeRepositories, FixedClock } from '../test-support/fakes';
import { ForbiddenError, ValidationError } from '../errors';
import { AddSuppressionsInBulk } from './add-suppressions-in-bulk';
import { CheckSuppression } from './check-suppression';
import { RemoveSuppressionsInBulk } from './remove-suppressions-in-bulk';

describe('suppression use cases (fakes)', () => {
  const caller = { tokenId: 1, channelId: 7, permissions: [] };
  const admin = { tokenId: 2, channelId: 0, permissions: [], admin: true as const };
  const clock = new FixedClock(new Date('2026-11-25T10:00:00Z'));

  it('bulk add normalises, counts duplicates once and reports malformed entries as sent', async () => {
    const repositories = fakeRepositories();
    await repositories.suppressions.add(7, 'old@example.com', 'bounce', clock.now());
    const result = await new AddSuppressionsInBulk(repositories, clock).execute(caller, {
      scope: 'channel',
      emails: ['A@example.com', 'a@example.com ', 'old@example.com', 'no at sign', ''],
    });
    expect(result).toEqual({ added: 1, alreadySuppressed: 1, invalid: ['no at sign', ''] });
    expect(repositories.suppressions.rows.map((r) => [r.channelId, r.email, r.reason])).toEqual([
      [7, 'old@example.com', 'bounce'],
      [7, 'a@example.com', 'manual'],
    ]);
  });

  it('refuses more than 10,000 entries before touching the list', async () => {
    const repositories = fakeRepositories();
    const emails = Array.from({ length: 10_001 }, (_, i) => `x${i}@example.com`);
    await expect(new AddSuppressionsInBulk(repositories, clock).execute(admin, { scope: 'global', emails })).rejects.toBeInstanceOf(ValidationError);
    await expect(new RemoveSuppressionsInBulk(repositories).execute(admin, { scope: 'global', emails })).rejects.toBeInstanceOf(ValidationError);
    // A channel token is refused for what it is, before its entries are read.
    await expect(new AddSuppressionsInBulk(repositories, clock).execute(caller, { scope: 'global', emails })).rejects.toEqual(
      new ForbiddenError('Admin API token required for global suppressions'),
    );
    expect(repositories.suppressions.rows).toEqual([]);
  });

  it('check prefers the channel list to the global one', async () => {
    const repositories = fakeRepositories();
    await repositories.suppressions.add(null, 'x@example.com', 'manual', clock.now());
    const check = new CheckSuppression(repositories);
    expect(await check.execute(caller, { email: 'X@example.com' })).toEqual({ email: 'x@example.com', suppressed: true, scope: 'global', reason: 'manual' });
    await repositories.suppressions.add(7, 'x@example.com', 'complaint', clock.now());
    expect(await check.execute(caller, { email: 'x@example.com' })).toMatchObject({ scope: 'channel', reason: 'complaint' });
    expect(await check.execute({ ...caller, channelId: 8 }, { email: 'x@example.com' })).toMatchObject({ scope: 'global' });
  });
});
