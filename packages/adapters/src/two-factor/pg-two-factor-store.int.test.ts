import { hashRecoveryCode } from '@mailcast/domain';
import { createTestDatabase, suiteResource } from '@mailcast/testkit';
import { randomBytes } from 'node:crypto';
import { resealSecrets } from '../secrets/reseal-secrets';
import { SecretBox } from '../secrets/secret-box';
import { PgTwoFactorStore } from './pg-two-factor-store';

/** The two-factor state's "once" rules under concurrency, and its secret at rest (docs/teams.md, "Two-factor"). */
describe('PgTwoFactorStore', () => {
  const database = suiteResource(
    () => createTestDatabase(),
    (d) => d.drop(),
  );
  const oldKey = randomBytes(32);
  let counter = 0;
  const aUser = async () => {
    counter += 1;
    const [row] = await database
      .db('users')
      .insert({ email: `tf${counter}@example.com` })
      .returning('id');
    return Number(row.id);
  };

  it('two requests racing with one time step: exactly one is accepted', async () => {
    const store = new PgTwoFactorStore(database.db, new SecretBox(oldKey));
    const id = await aUser();
    await store.savePendingSecret(id, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(await store.enable(id, 100, [hashRecoveryCode('aaaaa-bbbbb')])).toBe(true);
    const raced = await Promise.all(Array.from({ length: 8 }, () => store.acceptStep(id, 101)));
    expect(raced.filter(Boolean)).toHaveLength(1);
    // An older step of the window, after a newer one was accepted: refused.
    expect(await store.acceptStep(id, 100)).toBe(false);
    expect(await store.acceptStep(id, 102)).toBe(true);
  });

  it('two requests racing with one recovery code: exactly one uses it', async () => {
    const store = new PgTwoFactorStore(database.db, new SecretBox(oldKey));
    const id = await aUser();
    await store.savePendingSecret(id, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    await store.enable(id, 1, [hashRecoveryCode('ccccc-ddddd'), hashRecoveryCode('eeeee-fffff')]);
    const raced = await Promise.all(Array.from({ length: 8 }, () => store.useRecoveryCode(id, hashRecoveryCode('ccccc-ddddd'))));
    expect(raced.filter(Boolean)).toHaveLength(1);
    // Another user's code does not open this one.
    const other = await aUser();
    expect(await store.useRecoveryCode(other, hashRecoveryCode('eeeee-fffff'))).toBe(false);
  });

  it('the secret is sealed, and `admin secrets reencrypt` moves it to a new key', async () => {
    const id = await aUser();
    await new PgTwoFactorStore(database.db, new SecretBox(oldKey)).savePendingSecret(id, 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU');
    const before = (await database.db('users').where({ id }).first('totp_secret')).totp_secret as string;
    expect(before).not.toContain('KRSXG5CTMVRXEZLU');
    const newKey = randomBytes(32);
    const result = await resealSecrets(database.db, new SecretBox(newKey, [oldKey]), 'all');
    expect(result.reencrypted).toBeGreaterThanOrEqual(1);
    // The old key can go.
    expect((await new PgTwoFactorStore(database.db, new SecretBox(newKey)).find(id))!.totpSecret).toBe('KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU');
  });
});
